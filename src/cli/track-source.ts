/**
 * Where `tradeseal signals log …` and `tradeseal signals verify` read the track log: the local store (the same
 * operations as the routes, src/signals/ops/track-log.ts) or a remote signal service (`/v1/log/…`), and the head a
 * subscriber saved, read from its file and checked against the schema the service answers with.
 */
import { signedTreeHeadSchema } from '../core/log/schemas.js';
import type { SignedTreeHead } from '../core/log/tree-head.js';
import { TradesealError } from '../core/errors.js';
import { readInputFile } from '../core/file-errors.js';
import type { Sql } from '../store/driver.js';
import { dayProof, trackConsistency, trackHead, type DayProof, type TrackConsistency } from '../signals/ops/track-log.js';
import { signalOn } from '../signals/store/published.js';
import { signalPackage } from '../signals/views.js';
import { validatePart } from '../core/validation.js';
import { callService, type Remote } from './signals-client.js';

export interface TrackSource {
  head(treeSize?: number): Promise<SignedTreeHead>;
  proof(date: string, treeSize: number): Promise<DayProof>;
  consistency(from: number, to: number): Promise<TrackConsistency>;
  /** The package served for the date now (null: none is published for it). */
  served(date: string): Promise<Record<string, unknown> | null>;
}

export const localTrackSource = (sql: Sql): TrackSource => ({
  head: (treeSize) => trackHead(sql, treeSize),
  proof: (date, treeSize) => dayProof(sql, date, treeSize),
  consistency: (from, to) => trackConsistency(sql, from, to),
  served: async (date) => {
    const row = await signalOn(sql, date);
    return row ? signalPackage(row) : null;
  },
});

export const remoteTrackSource = (remote: Remote): TrackSource => ({
  head: (treeSize) => callService<SignedTreeHead>(remote, 'GET', '/v1/log/head', { query: { tree_size: treeSize } }),
  proof: (date, treeSize) => callService<DayProof>(remote, 'GET', '/v1/log/proof', { query: { date, tree_size: treeSize } }),
  consistency: (from, to) => callService<TrackConsistency>(remote, 'GET', '/v1/log/consistency', { query: { from, to } }),
  served: async (date) => {
    try {
      return await callService<Record<string, unknown>>(remote, 'GET', `/v1/signals/${date}`);
    } catch (error) {
      if (error instanceof TradesealError && error.code === 'not_found') return null;
      throw error;
    }
  },
});

/**
 * The consistency proof from a saved size to the newest, or why the service has none: a log smaller than the
 * saved head, or without a head of its size (a fork), is a failed check, not an error of the command.
 */
export async function growthProof(source: TrackSource, saved: number, newest: number): Promise<TrackConsistency | string> {
  if (newest < saved) return `the log has ${newest} leaves, fewer than the ${saved} of the head you saved`;
  try {
    return await source.consistency(saved, newest);
  } catch (error) {
    if (error instanceof TradesealError && error.code === 'validation_failed') return `the service gives no consistency proof from ${saved} to ${newest} leaves: ${error.message}`;
    throw error;
  }
}

/** A saved head: the JSON of `GET /v1/log/head` in `file`; anything else is a mistake naming the file and the rule. */
export async function readSavedHead(file: string, flag: string): Promise<SignedTreeHead> {
  const text = await readInputFile(file, flag, { hint: 'save a head with `tradeseal signals log head --out FILE`' });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new TradesealError('validation_failed', `${flag}: ${file} is not JSON (${(error as Error).message})`, { errors: [{ field: flag, message: `${file} is not JSON` }] });
  }
  const errors = typeof value === 'object' && value !== null && !Array.isArray(value)
    ? validatePart(signedTreeHeadSchema, value as object, 'body')
    : [{ field: 'head', message: 'must be a JSON object' }];
  if (errors.length > 0) {
    throw new TradesealError('validation_failed', `${flag}: ${file} is not a signed tree head: ${errors.map((e) => `${e.field} ${e.message}`).join('; ')}`, {
      errors: errors.map((e) => ({ field: flag, message: `${file}: ${e.field} ${e.message}` })),
      hint: 'a head is the JSON GET /v1/log/head answers (`tradeseal signals log head --out FILE` saves one)',
    });
  }
  const head = value as SignedTreeHead;
  return { tree_size: head.tree_size, root_hash: head.root_hash, timestamp: head.timestamp, signature: head.signature, key_id: head.key_id };
}
