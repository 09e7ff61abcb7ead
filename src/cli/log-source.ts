/**
 * Where `tradeseal engine log …` reads the transparency log: the local store (the engine's own operations,
 * src/engine/ops/log.ts) or a remote engine (`--url`, `--token`, over the same HTTP routes). Either way the
 * command gets the same shapes, and `verify` checks them with the same pure code (src/core/log/trace-check.ts).
 */
import type { Sql } from 'postgres';
import type { Config } from '../core/config.js';
import type { KeySettings } from '../secrets/kms/from-config.js';
import { parsePublicKey } from '../core/crypto/ed25519.js';
import { notFound, TradesealError } from '../core/errors.js';
import type { TraceHashes, TraceLogProof } from '../core/log/trace-check.js';
import type { SignedTreeHead } from '../core/log/tree-head.js';
import { traceProof, treeHead } from '../engine/ops/log.js';
import { logKeyLoader } from '../engine/store/log-key.js';
import { traceLogFacts } from '../store/log-read.js';
import type { Store } from '../store/db.js';
import { getFromEngine, type EngineRemote } from './engine-client.js';

export interface TraceInLog {
  head: SignedTreeHead;
  proof: TraceLogProof;
  trace: TraceHashes;
}

/** `--public-key` as 32 bytes; a malformed key is `validation_failed` on the flag (exit 2). */
export function publicKeyFlag(text: string): Uint8Array {
  try {
    return parsePublicKey(text);
  } catch (error) {
    throw new TradesealError('validation_failed', `--public-key: ${(error as Error).message}`, {
      errors: [{ field: '--public-key', message: (error as Error).message }],
    });
  }
}

export async function localHead(store: Store, config: Config, treeSize?: number): Promise<SignedTreeHead> {
  return treeHead(store.sql, logKeyLoader(store.sql, config), treeSize);
}

export const remoteHead = (remote: EngineRemote, treeSize?: number): Promise<SignedTreeHead> =>
  getFromEngine(remote, '/engine/log/head', { tree_size: treeSize });

/** The head, the proofs and the trace's hashes from the local store, with the log's own public key. */
export async function localTraceInLog(
  sql: Sql,
  config: Pick<Config, 'logSigningKey'> & KeySettings,
  traceId: string,
): Promise<TraceInLog & { logPublicKey: Uint8Array }> {
  const key = logKeyLoader(sql, config);
  const proof = await traceProof(sql, traceId);
  const head = await treeHead(sql, key, proof.tree_size);
  const trace = await traceLogFacts(sql, traceId);
  if (!trace) throw notFound(`no trace ${traceId}`, 'the traces are listed by `tradeseal engine traces list`');
  return { head, proof, trace: { reasoning_hash: trace.reasoning_hash, final_proof: trace.final_proof }, logPublicKey: (await key()).publicKey };
}

/** The same from a remote engine: the proofs, the head of their size, and the trace document's hashes. */
export async function remoteTraceInLog(remote: EngineRemote, traceId: string): Promise<TraceInLog> {
  const id = encodeURIComponent(traceId);
  const proof = await getFromEngine<TraceLogProof>(remote, `/engine/log/proof/${id}`);
  const head = await remoteHead(remote, proof.tree_size);
  const document = await getFromEngine<{ integrity: TraceHashes }>(remote, `/engine/trace/${id}`);
  return { head, proof, trace: { reasoning_hash: document.integrity.reasoning_hash, final_proof: document.integrity.final_proof } };
}
