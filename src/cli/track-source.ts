/**
 * Where `tradeseal signals log …` and `tradeseal signals verify` read the track log: the local store (the same
 * operations as the routes, src/signals/ops/track-log.ts) or a remote signal service (`/v1/log/…`), and the head a
 * subscriber saved, read from its file and checked against the schema the service answers with.
 *
 * A run over every logged day asks for the list of days once, the packages served in windows of
 * `GET /v1/signals/range` (a year a request), and each day's proof, a few at a time: a Free key's 30 days cost
 * some 25 requests of its 50 a day (a proof for each of its 21 or so trading days, and four more).
 */
import { signedTreeHeadSchema } from '../core/log/schemas.js';
import type { SignedTreeHead } from '../core/log/tree-head.js';
import { TradesealError } from '../core/errors.js';
import { readInputFile } from '../core/file-errors.js';
import type { Sql } from '../store/driver.js';
import { windowsOf } from '../signals/ops/date-range.js';
import { dayProof, trackConsistency, trackDays, trackHead, type DayProof, type LoggedDays, type TrackConsistency } from '../signals/ops/track-log.js';
import { RANGE_MAX_DAYS } from '../signals/inputs.js';
import { signalOn, signalsBetween } from '../signals/store/published.js';
import type { DayInput } from '../signals/track/day-check.js';
import { signalPackage } from '../signals/views.js';
import { validatePart } from '../core/validation.js';
import { callService, type Remote } from './signals-client.js';

export interface TrackSource {
  head(treeSize?: number): Promise<SignedTreeHead>;
  proof(date: string, treeSize: number): Promise<DayProof>;
  consistency(from: number, to: number): Promise<TrackConsistency>;
  /** The package served for the date now (null: none is published for it). */
  served(date: string): Promise<Record<string, unknown> | null>;
  /** The days logged in the tree of `treeSize` leaves that the reader may read. */
  days(treeSize: number): Promise<LoggedDays>;
  /** The packages served now for the days from `start` to `end` (at most RANGE_MAX_DAYS calendar days), by date. */
  servedBetween(start: string, end: string): Promise<Array<Record<string, unknown>>>;
}

export const localTrackSource = (sql: Sql): TrackSource => ({
  head: (treeSize) => trackHead(sql, treeSize),
  proof: (date, treeSize) => dayProof(sql, date, treeSize),
  consistency: (from, to) => trackConsistency(sql, from, to),
  served: async (date) => {
    const row = await signalOn(sql, date);
    return row ? signalPackage(row) : null;
  },
  days: (treeSize) => trackDays(sql, treeSize),
  servedBetween: async (start, end) => (await signalsBetween(sql, start, end)).map(signalPackage),
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
  days: (treeSize) => callService<LoggedDays>(remote, 'GET', '/v1/log/days', { query: { tree_size: treeSize } }),
  servedBetween: (start, end) => callService<Array<Record<string, unknown>>>(remote, 'GET', '/v1/signals/range', { query: { start, end } }),
});

/** Proofs asked for at once in a run over every day. */
const PROOFS_AT_ONCE = 8;

/** Answers that are about the day asked for, not the service: a failed day, not a failed run. */
const DAY_REFUSALS: ReadonlySet<string> = new Set(['not_found', 'validation_failed', 'history_limit']);

/**
 * What the check of each of `dates` reads: its leaves with their proofs in the tree of `treeSize` leaves (or why
 * the service gave none) and the package served for it now (null when none is).
 */
export async function gatherDays(source: TrackSource, dates: readonly string[], treeSize: number): Promise<DayInput[]> {
  const served = new Map<string, Record<string, unknown>>();
  for (const { start, end } of windowsOf(dates, RANGE_MAX_DAYS)) {
    for (const pkg of await source.servedBetween(start, end)) if (typeof pkg.date === 'string') served.set(pkg.date, pkg);
  }
  const proofOf = async (date: string): Promise<DayProof | string> => {
    try {
      return await source.proof(date, treeSize);
    } catch (error) {
      if (error instanceof TradesealError && DAY_REFUSALS.has(error.code)) return `the service gives no proof of ${date}: ${error.message}`;
      throw error;
    }
  };
  const days: DayInput[] = [];
  for (let i = 0; i < dates.length; i += PROOFS_AT_ONCE) {
    const batch = dates.slice(i, i + PROOFS_AT_ONCE);
    days.push(...(await Promise.all(batch.map(async (date) => ({ date, proof: await proofOf(date), served: served.get(date) ?? null })))));
  }
  return days;
}

/**
 * The consistency proof from a saved size to the newest, or why the service has none: a log smaller than the
 * saved head, or without a head of its size (a fork), is a failed check, not an error of the command.
 */
export async function growthProof(source: TrackSource, saved: number, newest: number): Promise<TrackConsistency | string> {
  if (newest < saved) return `the log has ${newest} leaves, fewer than the ${saved} of the head you saved`;
  try {
    return await source.consistency(saved, newest);
  } catch (error) {
    if (error instanceof TradesealError && error.code === 'validation_failed')
      return `the service gives no consistency proof from ${saved} to ${newest} leaves: ${error.message}`;
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
    throw new TradesealError('validation_failed', `${flag}: ${file} is not JSON (${(error as Error).message})`, {
      errors: [{ field: flag, message: `${file} is not JSON` }],
    });
  }
  const errors =
    typeof value === 'object' && value !== null && !Array.isArray(value)
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
