/**
 * Whether a verified chain extends its checkpoints, as `tradeseal engine audit-log verify` reports it: the
 * newest checkpoint the engine keeps (`store`) and one the auditor kept from before (`kept`, `--checkpoint`).
 * Pure: the chain walk has located the anchored entries (./verify.ts), this judges them.
 *
 * For each checkpoint: its signature must verify under the public key at hand (none at hand, against a remote
 * engine without `--public-key`: not checked, and said so), and the chain must hold the anchored entry at its
 * position with its hash (./checkpoint.ts `anchorBroken`). The entries after the newest anchor are reported:
 * those could still be cut unseen.
 *
 * What each proves: the store's checkpoint, that nothing up to it was cut or changed since it was signed,
 * unless whoever cut the chain also deleted the checkpoints after the cut; a kept checkpoint, that nothing up
 * to it was, whatever happened to the store since, since the auditor's copy is out of the store's reach.
 */
import { anchorBroken, badCheckpointSignature, type AnchoredEntryFound, type SignedAuditCheckpoint } from './checkpoint.js';
import type { ChainVerification } from './verify.js';

export type AnchorSource = 'store' | 'kept';

export interface AnchorCheck {
  checkpoint: SignedAuditCheckpoint;
  /** Whether its signature was checked (and held): false when no public key was at hand. */
  signature_verified: boolean;
}

export interface AnchoredChainVerification extends ChainVerification {
  /** The newest checkpoint kept in the store; null when none was signed yet. */
  anchor: AnchorCheck | null;
  /** The checkpoint given with `--checkpoint`; null when none was. */
  kept: AnchorCheck | null;
  /** Entries at or before the last anchored one (the larger of the two checkpoints). */
  anchored: number;
  /** Entries after it: not yet anchored, the ones that could still be cut unseen. */
  unanchored: number;
}

export interface AnchorJudgement {
  result: AnchoredChainVerification;
  /** Why the chain does not extend a checkpoint, one line each; empty when it extends both. */
  failures: string[];
}

const WHAT: Record<AnchorSource, string> = { store: 'the newest checkpoint in the store', kept: 'the kept checkpoint' };

/** The ids a chain walk must locate for these checkpoints. */
export function anchorLocator(...checkpoints: Array<SignedAuditCheckpoint | null>): Map<string, AnchoredEntryFound | null> {
  return new Map(checkpoints.flatMap((c) => (c ? [[c.entry_id, null] as const] : [])));
}

/** Judges the checkpoints against a chain whose links hold (`chain.valid`), with the entries the walk located. */
export function judgeAnchors(
  chain: ChainVerification,
  checkpoints: Record<AnchorSource, SignedAuditCheckpoint | null>,
  located: ReadonlyMap<string, AnchoredEntryFound | null>,
  publicKey: Uint8Array | null,
): AnchorJudgement {
  const failures: string[] = [];
  const check = (source: AnchorSource): AnchorCheck | null => {
    const c = checkpoints[source];
    if (!c) return null;
    const badSignature = publicKey ? badCheckpointSignature(c, publicKey) : null;
    if (badSignature) failures.push(`${WHAT[source]}, of entry ${c.size} (id ${c.entry_id}), does not verify: ${badSignature}`);
    const broken = anchorBroken(c, located.get(c.entry_id) ?? null, chain.entries, WHAT[source]);
    if (broken) failures.push(broken);
    return { checkpoint: c, signature_verified: publicKey !== null && badSignature === null };
  };
  const anchor = check('store');
  const kept = check('kept');
  const anchored = failures.length > 0 ? 0 : Math.max(anchor?.checkpoint.size ?? 0, kept?.checkpoint.size ?? 0);
  return { result: { ...chain, anchor, kept, anchored, unanchored: chain.entries - anchored }, failures };
}
