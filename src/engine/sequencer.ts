/**
 * The transparency log's sequencer, run by every engine server: every `SEQUENCE_INTERVAL_MS` it moves the
 * committed traces' queued leaves into the log (src/engine/store/log-sequence.ts), pass after pass until the
 * queue is short, then signs nothing more until new traces commit. Several servers on one database take turns
 * through the log's advisory lock: one appends, the others skip the tick, and no leaf is appended twice.
 *
 * Appending is off the authorize path: authorize and bind only insert a queue row (in the statement that writes
 * the trace), and a committed trace reaches the log within a second.
 */
import type { Sql } from 'postgres';
import type { Config } from '../core/config.js';
import type { KeySettings } from '../secrets/kms/from-config.js';
import { runEvery } from '../core/periodic.js';
import { logKeyLoader } from './store/log-key.js';
import { SEQUENCE_BATCH, sequenceOnce } from './store/log-sequence.js';

export const SEQUENCE_INTERVAL_MS = 200;

export interface SequencerOptions {
  now?: () => number;
  intervalMs?: number;
  log?: (msg: string, err?: unknown) => void;
}

/** Starts the sequencer; the returned function stops it and resolves once a pass under way has finished. */
export function startSequencer(sql: Sql, config: Pick<Config, 'logSigningKey'> & KeySettings, options: SequencerOptions = {}): () => Promise<void> {
  const log = options.log ?? (() => {});
  const key = logKeyLoader(sql, config);
  const now = options.now ?? Date.now;
  return runEvery(
    options.intervalMs ?? SEQUENCE_INTERVAL_MS,
    async (stopped) => {
      const k = await key();
      for (;;) {
        const pass = await sequenceOnce(sql, k, now());
        if (pass.dropped > 0) log(`transparency log: ${pass.dropped} queued leaf(s) were already logged and were dropped`);
        if (stopped() || pass.status !== 'appended' || pass.appended + pass.dropped < SEQUENCE_BATCH) break;
      }
    },
    (err) => log('transparency log: sequencing failed; retrying at the next tick', err),
  );
}
