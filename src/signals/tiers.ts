/**
 * The tiers of the regime signal service (docs/decisions/0018-signal-keys-and-tiers.md): requests per
 * rolling 24 hours, the history a key may read, the CSV export's rows, whether the IP lock applies, and which
 * endpoints each may call. Engine tiers and owner have no daily limit and full history. One table: the routes, the
 * CLI and the README read it.
 */

export const TIERS = ['free', 'starter', 'pro', 'engine_sidecar', 'engine_audit', 'owner'] as const;
export type Tier = (typeof TIERS)[number];

export interface TierSpec {
  label: string;
  /** Requests per rolling 24 hours; null: unlimited. */
  dailyLimit: number | null;
  /** Days of history a key may read back from the newest published day; null: full history. */
  historyDays: number | null;
  /** Rows of the CSV export at most. */
  exportRows: number;
  /** The IP lock (a key used from a second address within 15 minutes of its last use elsewhere) applies. */
  ipLock: boolean;
  /** Rank for "Starter+"-style access: a tier may call what any lower rank may. */
  rank: number;
}

export const TIER_SPECS: Readonly<Record<Tier, TierSpec>> = Object.freeze({
  free: { label: 'Free', dailyLimit: 50, historyDays: 30, exportRows: 30, ipLock: true, rank: 0 },
  starter: { label: 'Starter', dailyLimit: 500, historyDays: 180, exportRows: 730, ipLock: true, rank: 1 },
  pro: { label: 'Pro', dailyLimit: null, historyDays: null, exportRows: 730, ipLock: true, rank: 2 },
  engine_sidecar: { label: 'Engine sidecar', dailyLimit: null, historyDays: null, exportRows: 1_000_000, ipLock: false, rank: 3 },
  engine_audit: { label: 'Engine audit', dailyLimit: null, historyDays: null, exportRows: 1_000_000, ipLock: false, rank: 3 },
  owner: { label: 'Owner', dailyLimit: null, historyDays: null, exportRows: 1_000_000, ipLock: false, rank: 4 },
});

/** Who may call an endpoint (the interface's access levels). */
export type Access = 'key' | 'starter' | 'pro' | 'engine' | 'engine_audit' | 'owner';

/** Whether `tier` may call an endpoint of `access`. */
export function allows(tier: Tier, access: Access): boolean {
  switch (access) {
    case 'key':
      return true;
    case 'starter':
      return TIER_SPECS[tier].rank >= TIER_SPECS.starter.rank;
    case 'pro':
      return TIER_SPECS[tier].rank >= TIER_SPECS.pro.rank;
    case 'engine':
      return tier === 'engine_sidecar' || tier === 'engine_audit' || tier === 'owner';
    case 'engine_audit':
      return tier === 'engine_audit';
    case 'owner':
      return tier === 'owner';
  }
}

/** The interface's minimum number of agents of an account for the audit decomposition. */
export const AUDIT_MIN_AGENTS = 3;

/** A key's IP lock lasts this long after its last use from another address. */
export const IP_LOCK_MS = 15 * 60_000;

/** The rolling window of the daily limit. */
export const RATE_WINDOW_MS = 24 * 3_600_000;
