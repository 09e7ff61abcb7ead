/**
 * The audit chain's anchorer, one of the server's background jobs (src/http/singletons.ts): every
 * `AUDIT_ANCHOR_INTERVAL_MS` it signs a checkpoint of the chain's head when the chain grew since the newest
 * checkpoint (./anchor.ts), with the transparency log's key. So an entry is anchored within about a second of
 * its commit while a server runs, and only the entries of that last second can be cut off the chain's end
 * without `tradeseal engine audit-log verify` seeing it in the store's checkpoints. An idle chain costs one
 * read per tick and signs nothing.
 */
import type { Sql } from 'postgres';
import type { Config } from '../../core/config.js';
import type { KeySettings } from '../../secrets/kms/from-config.js';
import { logKeyLoader } from '../store/log-key.js';
import { runEvery } from '../../core/periodic.js';
import { anchorOnce } from './anchor.js';

export const AUDIT_ANCHOR_INTERVAL_MS = 1000;

export interface AnchorerOptions {
  now?: () => number;
  intervalMs?: number;
  log?: (msg: string, err?: unknown) => void;
}

/** Starts the anchorer; the returned function stops it and resolves once a pass under way has finished. */
export function startAnchorer(sql: Sql, config: Pick<Config, 'logSigningKey'> & KeySettings, options: AnchorerOptions = {}): () => Promise<void> {
  const log = options.log ?? (() => {});
  const key = logKeyLoader(sql, config);
  const now = options.now ?? Date.now;
  return runEvery(
    options.intervalMs ?? AUDIT_ANCHOR_INTERVAL_MS,
    async () => anchorOnce(sql, await key(), now()),
    (err) => log('audit chain: anchoring failed; retrying at the next tick', err),
  );
}
