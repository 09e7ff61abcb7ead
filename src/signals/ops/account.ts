/**
 * The account object of `GET /v1/account` (docs/signals.md, "Accounts, keys and tiers"), for the key that asks.
 *
 * - `features` are the endpoints' groups the tier may call, derived from the one tier table
 *   (src/signals/tiers.ts `allows`), so the list cannot promise what the routes refuse.
 * - `product` names the plan; `product_line` is `signals` (free, starter, pro), `engine` (the engine tiers) or
 *   `operator` (owner).
 * - `usage.today_requests` counts the requests of all the account's keys (revoked ones included, so rotating
 *   does not reset it) since 00:00 UTC, this one included; `usage.daily_limit` is the tier's limit per rolling
 *   24 hours, or null for a tier without a limit (pro, the engine tiers, owner), as `X-RateLimit-Limit` says
 *   `unlimited`.
 */
import type { Config } from '../../core/config.js';
import { notFound } from '../../core/errors.js';
import { publicBaseUrl } from '../../core/public-base-url.js';
import type { SignalsContext } from '../context.js';
import { accountWithKeyIds } from '../store/accounts.js';
import type { KeyRecord } from '../store/keys.js';
import { allows, TIER_SPECS, type Access, type Tier } from '../tiers.js';

/** Each feature and the access level of its endpoints (docs/decisions/0018-signal-keys-and-tiers.md). */
export const FEATURES: ReadonlyArray<readonly [feature: string, access: Access]> = [
  ['signals', 'key'],
  ['history', 'key'],
  ['liquidity', 'key'],
  ['scorecard', 'key'],
  ['performance', 'key'],
  ['export', 'key'],
  ['forecast', 'starter'],
  ['backtest', 'pro'],
  ['webhook', 'pro'],
  ['heartbeat', 'engine'],
  ['audit', 'engine_audit'],
];

export const featuresOf = (tier: Tier): string[] => FEATURES.filter(([, access]) => allows(tier, access)).map(([feature]) => feature);

export function productOf(tier: Tier): { product: string; product_line: 'signals' | 'engine' | 'operator' } {
  const label = TIER_SPECS[tier].label;
  if (tier === 'owner') return { product: 'tradeseal Owner', product_line: 'operator' };
  if (tier === 'engine_sidecar' || tier === 'engine_audit') return { product: `tradeseal ${label}`, product_line: 'engine' };
  return { product: `tradeseal Regime Signals ${label}`, product_line: 'signals' };
}

export interface AccountView {
  email: string;
  tier: Tier;
  tier_label: string;
  product: string;
  product_line: string;
  agent_count: number;
  payment_status: string;
  features: string[];
  usage: { today_requests: number; daily_limit: number | null };
  billing_portal_url: string;
  docs_url: string;
}

/** The account object from the account's stored fields and today's requests: no I/O. */
export function accountObject(
  account: { email: string; tier: Tier; agent_count: number; payment_status: string },
  todayRequests: number,
  config: Pick<Config, 'publicBaseUrl' | 'host' | 'port' | 'tlsCert'>,
): AccountView {
  return {
    email: account.email,
    tier: account.tier,
    tier_label: TIER_SPECS[account.tier].label,
    ...productOf(account.tier),
    agent_count: account.agent_count,
    payment_status: account.payment_status,
    features: featuresOf(account.tier),
    usage: { today_requests: todayRequests, daily_limit: TIER_SPECS[account.tier].dailyLimit },
    billing_portal_url: `${publicBaseUrl(config)}/v1/billing/payments/portal`,
    docs_url: `${publicBaseUrl(config)}/docs`,
  };
}

export async function accountView(ctx: SignalsContext, key: KeyRecord): Promise<AccountView> {
  const account = await accountWithKeyIds(ctx.sql, key.account_id);
  if (!account) throw notFound('the account of this key no longer exists');
  return accountObject(account, await ctx.usage.today(account.key_ids), ctx.config);
}

/** The README's table of tiers, generated from the tier table and the features above. */
export function tiersTable(): string {
  const rows = (Object.entries(TIER_SPECS) as Array<[Tier, (typeof TIER_SPECS)[Tier]]>).map(([tier, s]) => [
    `\`${tier}\``,
    s.label,
    s.dailyLimit === null ? 'unlimited' : String(s.dailyLimit),
    s.historyDays === null ? 'full' : `${s.historyDays} days`,
    s.exportRows >= 1_000_000 ? 'all' : String(s.exportRows),
    s.ipLock ? 'yes' : 'no',
    featuresOf(tier).join(', '),
  ]);
  return [
    '| Tier | Label | Requests per rolling 24 h | History | CSV export rows | IP lock | Features |',
    '|---|---|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
}
