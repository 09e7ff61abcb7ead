/**
 * Where `tradeseal engine audit-log checkpoint` and `… audit-log verify` get checkpoints of the audit chain
 * (src/engine/audit/checkpoint.ts): the newest one of the local store or of a remote engine
 * (`GET /engine/admin/audit-log/checkpoint`), and one an auditor kept in a file (`--checkpoint`).
 */
import type { Sql } from 'postgres';
import type { Config } from '../core/config.js';
import type { KeySettings } from '../secrets/kms/from-config.js';
import { isTradesealError, TradesealError } from '../core/errors.js';
import { readInputFile } from '../core/file-errors.js';
import { anchorOnce, newestCheckpoint } from '../engine/audit/anchor.js';
import { checkpointProblems, type SignedAuditCheckpoint } from '../engine/audit/checkpoint.js';
import { loadLogKey } from '../engine/store/log-key.js';
import { getFromEngine, type EngineRemote } from './engine-client.js';

const CHECKPOINT_PATH = '/engine/admin/audit-log/checkpoint';

/** Signs a checkpoint of the chain's head now if the chain grew since the newest one; then the newest one. */
export async function anchorNow(sql: Sql, config: Pick<Config, 'logSigningKey'> & KeySettings, nowMs: number): Promise<SignedAuditCheckpoint | null> {
  await anchorOnce(sql, await loadLogKey(sql, config), nowMs);
  return newestCheckpoint(sql);
}

/** A remote engine's newest checkpoint; null when it has signed none yet. */
export async function remoteCheckpoint(remote: EngineRemote): Promise<SignedAuditCheckpoint | null> {
  try {
    return await getFromEngine<SignedAuditCheckpoint>(remote, CHECKPOINT_PATH);
  } catch (error) {
    if (isTradesealError(error) && error.code === 'not_found') return null;
    throw error;
  }
}

/** A checkpoint kept in a file (what `engine audit-log checkpoint --json` printed); a bad one is `validation_failed` naming the file. */
export async function readKeptCheckpoint(file: string): Promise<SignedAuditCheckpoint> {
  const hint = 'give the file `tradeseal engine audit-log checkpoint --json` wrote (or GET /engine/admin/audit-log/checkpoint answered)';
  const text = await readInputFile(file, '--checkpoint', { hint });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new TradesealError('validation_failed', `--checkpoint: ${file} is not JSON: ${(error as Error).message}`, {
      hint,
      errors: [{ field: '--checkpoint', message: 'is not JSON' }],
    });
  }
  const problems = checkpointProblems(value);
  if (problems.length > 0) {
    throw new TradesealError(
      'validation_failed',
      `--checkpoint: ${file} is not a signed checkpoint: ${problems.map((p) => `${p.field} ${p.message}`).join('; ')}`,
      {
        hint,
        errors: problems.map((p) => ({ field: `--checkpoint ${p.field}`, message: p.message })),
      },
    );
  }
  const c = value as SignedAuditCheckpoint;
  return { size: c.size, entry_id: c.entry_id, entry_hash: c.entry_hash, timestamp: c.timestamp, signature: c.signature, key_id: c.key_id };
}
