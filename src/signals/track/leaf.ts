/**
 * What one leaf of the signal service's track log says (migration 0025; the log itself is RFC 9162's, with the
 * engine's Merkle code, src/core/log/). A leaf's data are the UTF-8 bytes of the canonical JSON (RFC 8785) of
 *
 *   { "date", "entry_type", "kind", "logged_at", "record", "run_id", "supersedes" }
 *
 * where `record` is the day's signal-day record and `entry_type` names its type and version (`signal-day/v1`,
 * src/core/records/signal-day.ts): the fields the log vouches for, of which `GET /v1/signals/{date}` serves a
 * superset. `logged_at` is the timestamp of the signed head of the transaction that published it, and
 * `supersedes` the index of the day's previous leaf (null for its first).
 *
 * A leaf written before entry types has no `entry_type` and holds the day under `package`:
 *
 *   { "date", "kind", "logged_at", "package", "run_id", "supersedes" }
 *
 * It is read as a `signal-day/v0` entry, whose fields are frozen in src/core/records/signal-day.ts, and
 * re-encoded in the same form to check that its text is canonical: a log written then verifies as it did.
 *
 * The kind says what a subscriber could have had, and is decided from the leaf's own fields, so that anyone can
 * check it:
 * - `live`: the day's first leaf, logged at or after the moment its record says it became available
 *   (`available_at`) and no later than the first NYSE open after it (`liveUntil`): the open at which a
 *   subscriber first trades the day's regime, so every return the live record counts was traded on a regime
 *   that was out before it (a day published the night after it was due is not: its first open went by);
 * - `backfill`: the day's first leaf, logged outside that window (history computed later, a day published before
 *   the log existed, a day without `available_at`), or logged by `tradeseal signals log backfill`, which logs the
 *   days published before the log existed and never calls one live: not evidence of a live record. A leaf may
 *   always claim less than its fields allow (`backfill` where `live` would do), never more;
 * - `republication`: a later leaf of a day already logged whose record's fields changed (a `--full` recompute, a
 *   revised input); the first leaf stays the original. A field only the API serves is not logged, so it never
 *   makes one.
 */
import { SIGNAL_DAY_ENTRY_TYPES, SIGNAL_DAY_V0, signalDayProblems, type SignalDayEntryType } from '../../core/records/signal-day.js';
import { canonicalJson } from '../../core/crypto/jcs.js';
import { firstOpenAfter, MARKET_OPEN_TIME, MARKET_TIME_ZONE } from '../../../pipeline/release/publication.js';
import { zonedInstant } from '../../core/calendars/zoned-time.js';

export const TRACK_LEAF_KINDS = ['live', 'backfill', 'republication'] as const;
export type TrackLeafKind = (typeof TRACK_LEAF_KINDS)[number];

/**
 * The last instant a day's first leaf may be logged and still be live: the first NYSE open (09:30 New York) at or
 * after its `available_at`. A night that publishes at 06:30 has three hours; a late night after the open, or the
 * next night, makes the day a backfill.
 */
export const liveUntil = (availableAt: string): number => {
  const at = Date.parse(availableAt);
  return zonedInstant(firstOpenAfter(at), MARKET_OPEN_TIME, MARKET_TIME_ZONE);
};

export interface TrackLeaf {
  date: string;
  /** The type and version of `record`: signal-day/v0 for a leaf written before entry types (its `package`). */
  entry_type: SignalDayEntryType;
  kind: TrackLeafKind;
  /** ISO-8601 UTC with milliseconds. */
  logged_at: string;
  /** Exactly the fields `entry_type` defines. */
  record: Record<string, unknown>;
  /** The pipeline run that published it. */
  run_id: string | null;
  /** The index of the day's previous leaf; null for the day's first. */
  supersedes: number | null;
}

/** The kind of a new leaf of a day (`backfill`: a day published before the log, never live): see the module comment. */
export function kindOfLeaf(previous: number | null, availableAt: string | null, loggedAtMs: number, backfill = false): TrackLeafKind {
  if (previous !== null) return 'republication';
  if (availableAt === null || backfill) return 'backfill';
  return loggedAtMs >= Date.parse(availableAt) && loggedAtMs <= liveUntil(availableAt) ? 'live' : 'backfill';
}

/** Whether a leaf may say `claimed` where its own fields give `allowed`: the same, or `backfill` for `live`. */
export const kindAllowed = (claimed: TrackLeafKind, allowed: TrackLeafKind): boolean => claimed === allowed || (claimed === 'backfill' && allowed === 'live');

/** The leaf's data: the canonical JSON text (compare and hash its UTF-8 bytes); a v0 leaf in the form it was written in. */
export function leafText(leaf: TrackLeaf): string {
  const { entry_type: entryType, record, ...envelope } = leaf;
  return canonicalJson(entryType === SIGNAL_DAY_V0 ? { ...envelope, package: record } : leaf);
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const ENVELOPE = ['date', 'kind', 'logged_at', 'run_id', 'supersedes'];
const WRITTEN_TYPES: readonly SignalDayEntryType[] = SIGNAL_DAY_ENTRY_TYPES.filter((t) => t !== SIGNAL_DAY_V0);

/** The entry type of a leaf's JSON and the member holding its record: `package` for a leaf without one (v0). */
function entryOf(value: Record<string, unknown>): { type: SignalDayEntryType; member: 'record' | 'package' } {
  if (!Object.hasOwn(value, 'entry_type')) return { type: SIGNAL_DAY_V0, member: 'package' };
  const type = value.entry_type;
  if (!WRITTEN_TYPES.includes(type as SignalDayEntryType)) {
    throw new TypeError(
      `the leaf's entry_type ${JSON.stringify(type)} is not one this tradeseal reads (${WRITTEN_TYPES.join(', ')}; a leaf without one is ${SIGNAL_DAY_V0}): a newer tradeseal may read it`,
    );
  }
  return { type: type as SignalDayEntryType, member: 'record' };
}

/**
 * Reads a leaf's data back, checking its shape (a verifier reads leaves it did not write): its entry type, a
 * record of exactly that version's fields naming the leaf's day, and its envelope. Throws a TypeError naming what
 * is wrong; the text must be the leaf's canonical form, so that a leaf has one encoding.
 */
export function parseLeaf(text: string): TrackLeaf {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new TypeError('the leaf data are not JSON');
  }
  if (!isRecord(value)) throw new TypeError('the leaf data are not a JSON object');
  const entry = entryOf(value);
  const { date, kind, logged_at: loggedAt, [entry.member]: record, run_id: runId, supersedes } = value;
  if (typeof date !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(date)) throw new TypeError('the leaf has no date (YYYY-MM-DD)');
  if (!TRACK_LEAF_KINDS.includes(kind as TrackLeafKind)) throw new TypeError(`the leaf's kind is not one of ${TRACK_LEAF_KINDS.join(', ')}`);
  if (typeof loggedAt !== 'string' || Number.isNaN(Date.parse(loggedAt))) throw new TypeError('the leaf has no logged_at time');
  if (!isRecord(record)) throw new TypeError(`the leaf has no ${entry.member} object`);
  if (runId !== null && typeof runId !== 'string') throw new TypeError("the leaf's run_id is neither a string nor null");
  if (supersedes !== null && !(Number.isSafeInteger(supersedes) && (supersedes as number) >= 0))
    throw new TypeError("the leaf's supersedes is neither a leaf index nor null");
  const members = [...ENVELOPE, entry.member, ...(entry.member === 'record' ? ['entry_type'] : [])];
  if (Object.keys(value).length !== members.length) throw new TypeError(`the leaf has members other than ${members.sort().join(', ')}`);
  const problems = signalDayProblems(entry.type, record);
  if (problems.length > 0) throw new TypeError(`the leaf's ${entry.member} is not a ${entry.type} record: ${problems.join('; ')}`);
  if (record.date !== date) throw new TypeError(`the leaf is of ${date} but its ${entry.member} of ${String(record.date)}`);
  const leaf: TrackLeaf = {
    date,
    entry_type: entry.type,
    kind: kind as TrackLeafKind,
    logged_at: loggedAt,
    record,
    run_id: runId,
    supersedes: supersedes as number | null,
  };
  if (leafText(leaf) !== text) throw new TypeError('the leaf data are not in canonical JSON (RFC 8785)');
  return leaf;
}
