/**
 * What one leaf of the signal service's track log says (migration 0025; the log itself is RFC 9162's, with the
 * engine's Merkle code, src/engine/log/). A leaf's data are the UTF-8 bytes of the canonical JSON (RFC 8785) of
 *
 *   { "date", "kind", "logged_at", "package", "run_id", "supersedes" }
 *
 * where `package` is the day's signal package exactly as `GET /v1/signals/{date}` serves it (its `available_at`
 * included), `logged_at` the timestamp of the signed head of the transaction that published it, and `supersedes`
 * the index of the day's previous leaf (null for its first).
 *
 * The kind says what a subscriber could have had, and is decided from the leaf's own fields, so that anyone can
 * check it:
 * - `live`: the day's first leaf, logged within `LIVE_WINDOW_MS` of the moment its package says it became
 *   available (`available_at`): the day as a subscriber could have had it then;
 * - `backfill`: the day's first leaf, logged outside that window (history computed later, a day published before
 *   the log existed, a day without `available_at`), or logged by `tradeseal signals log backfill`, which logs the
 *   days published before the log existed and never calls one live: not evidence of a live record. A leaf may
 *   always claim less than its fields allow (`backfill` where `live` would do), never more;
 * - `republication`: a later leaf of a day already logged, with other content (a `--full` recompute, a revised
 *   input); the first leaf stays the original.
 */
import { canonicalJson } from '../../crypto/jcs.js';

export const TRACK_LEAF_KINDS = ['live', 'backfill', 'republication'] as const;
export type TrackLeafKind = (typeof TRACK_LEAF_KINDS)[number];

/**
 * How long after its `available_at` a day's first leaf may be logged and still be live: a day (the nightly run's
 * cadence) and six hours for a late run. A missed night makes the days it would have published backfills.
 */
export const LIVE_WINDOW_MS = 30 * 3_600_000;

export interface TrackLeaf {
  date: string;
  kind: TrackLeafKind;
  /** ISO-8601 UTC with milliseconds. */
  logged_at: string;
  package: Record<string, unknown>;
  /** The pipeline run that published it. */
  run_id: string | null;
  /** The index of the day's previous leaf; null for the day's first. */
  supersedes: number | null;
}

/** The kind of a new leaf of a day (`backfill`: a day published before the log, never live): see the module comment. */
export function kindOfLeaf(previous: number | null, availableAt: string | null, loggedAtMs: number, backfill = false): TrackLeafKind {
  if (previous !== null) return 'republication';
  if (availableAt === null || backfill) return 'backfill';
  const lag = loggedAtMs - Date.parse(availableAt);
  return lag >= 0 && lag <= LIVE_WINDOW_MS ? 'live' : 'backfill';
}

/** Whether a leaf may say `claimed` where its own fields give `allowed`: the same, or `backfill` for `live`. */
export const kindAllowed = (claimed: TrackLeafKind, allowed: TrackLeafKind): boolean => claimed === allowed || (claimed === 'backfill' && allowed === 'live');

/** The leaf's data: the canonical JSON text (compare and hash its UTF-8 bytes). */
export const leafText = (leaf: TrackLeaf): string => canonicalJson(leaf);

/** The canonical text of a package, for comparing a day's content with its newest leaf's. */
export const packageText = (pkg: Record<string, unknown>): string => canonicalJson(pkg);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Reads a leaf's data back, checking its shape (a verifier reads leaves it did not write). Throws a TypeError
 * naming what is wrong; the text must be the leaf's canonical form, so that a leaf has one encoding.
 */
export function parseLeaf(text: string): TrackLeaf {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new TypeError('the leaf data are not JSON');
  }
  if (!isRecord(value)) throw new TypeError('the leaf data are not a JSON object');
  const { date, kind, logged_at: loggedAt, package: pkg, run_id: runId, supersedes } = value;
  if (typeof date !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(date)) throw new TypeError('the leaf has no date (YYYY-MM-DD)');
  if (!TRACK_LEAF_KINDS.includes(kind as TrackLeafKind)) throw new TypeError(`the leaf's kind is not one of ${TRACK_LEAF_KINDS.join(', ')}`);
  if (typeof loggedAt !== 'string' || Number.isNaN(Date.parse(loggedAt))) throw new TypeError('the leaf has no logged_at time');
  if (!isRecord(pkg)) throw new TypeError('the leaf has no package object');
  if (runId !== null && typeof runId !== 'string') throw new TypeError('the leaf\'s run_id is neither a string nor null');
  if (supersedes !== null && !(Number.isSafeInteger(supersedes) && (supersedes as number) >= 0)) throw new TypeError('the leaf\'s supersedes is neither a leaf index nor null');
  const leaf: TrackLeaf = { date, kind: kind as TrackLeafKind, logged_at: loggedAt, package: pkg, run_id: runId, supersedes: supersedes as number | null };
  if (Object.keys(value).length !== 6) throw new TypeError('the leaf has members other than date, kind, logged_at, package, run_id and supersedes');
  if (leafText(leaf) !== text) throw new TypeError('the leaf data are not in canonical JSON (RFC 8785)');
  return leaf;
}
