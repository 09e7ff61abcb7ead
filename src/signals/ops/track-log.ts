/**
 * The track log's read operations, shared by the HTTP routes (`/v1/log/...`) and the CLI (`tradeseal signals
 * log ...`, `tradeseal signals verify` on the local store), so both answer and refuse the same:
 *
 * - a signed tree head: the newest, or one signed at a given size (heads are signed when a publication logs days);
 * - a day's leaves with their inclusion proofs in the tree of a signed head's size;
 * - a consistency proof between two signed sizes;
 * - the days logged in the tree of a signed head (a subscriber's run over every day, `tradeseal signals verify`
   without `--date`), those older than a key's tier reads left out and counted.
 *
 * A size no head was signed at is `validation_failed` on the parameter (422, exit 2); a day without a leaf
 * `not_found`.
 */
import type { Sql } from 'postgres';
import { leafHash, toHex } from '../../core/log/hashing.js';
import { consistencyPath, inclusionPath, proofHashes } from '../../core/log/proofs.js';
import { nodesOf } from '../../core/log/subtrees.js';
import type { SignedTreeHead } from '../../core/log/tree-head.js';
import { notFound, validationError } from '../../core/errors.js';
import { dayLeaves, latestTrackHead, loggedDates, trackHeadAt, trackNodes } from '../store/track-log.js';
import type { TrackLeafKind } from '../track/leaf.js';

export interface DayLeafProof {
  leaf_index: number;
  kind: TrackLeafKind;
  /** The leaf data: the canonical JSON text whose UTF-8 bytes are the leaf (../track/leaf.ts). */
  data: string;
  /** RFC 9162 §2.1.1: SHA-256(0x00 ‖ data), lowercase hex. */
  leaf_hash: string;
  /** RFC 9162 §2.1.3.1's inclusion proof, lowercase hex, leaf to root. */
  audit_path: string[];
}

export interface DayProof {
  date: string;
  tree_size: number;
  /** The day's leaves in the tree of `tree_size`, oldest first: the first is the original, any later one a republication. */
  leaves: DayLeafProof[];
}

export interface TrackConsistency {
  from: number;
  to: number;
  proof: string[];
}

const noHead = (field: string, size: number): Error =>
  validationError([
    {
      field,
      message: `no head of the track log was signed at size ${size} (heads are signed when a publication logs days: GET /v1/log/head gives the newest)`,
    },
  ]);

/** The newest signed head, or that signed at `treeSize`. */
export async function trackHead(sql: Sql, treeSize?: number): Promise<SignedTreeHead> {
  if (treeSize === undefined) {
    const newest = await latestTrackHead(sql);
    if (!newest) throw notFound('the track log is empty: no day has been published since it began', 'the next pipeline run logs the days it publishes');
    return newest;
  }
  const head = await trackHeadAt(sql, treeSize);
  if (!head) throw noHead('tree_size', treeSize);
  return head;
}

/** A day's leaves and their inclusion proofs in the tree of the head signed at `treeSize` (default: the newest). */
export async function dayProof(sql: Sql, date: string, treeSize?: number): Promise<DayProof> {
  const head = await trackHead(sql, treeSize);
  const all = await dayLeaves(sql, date);
  if (all.length === 0) throw notFound(`no leaf of ${date} in the track log (not published since the log began, or not a trading day)`);
  const leaves = all.filter((leaf) => leaf.leaf_index < head.tree_size);
  if (leaves.length === 0) {
    throw validationError([
      {
        field: 'tree_size',
        message: `the first leaf of ${date} is leaf ${all[0]!.leaf_index}, so it is in trees of more than ${all[0]!.leaf_index} leaves (got ${head.tree_size})`,
      },
    ]);
  }
  const paths = leaves.map((leaf) => inclusionPath(leaf.leaf_index, head.tree_size));
  const lookup = await trackNodes(sql, nodesOf(paths.flat()));
  return {
    date,
    tree_size: head.tree_size,
    leaves: leaves.map((leaf, i) => ({
      leaf_index: leaf.leaf_index,
      kind: leaf.kind,
      data: leaf.data,
      leaf_hash: toHex(leafHash(new Uint8Array(Buffer.from(leaf.data, 'utf8')))),
      audit_path: proofHashes(paths[i]!, lookup).map(toHex),
    })),
  };
}

export interface LoggedDays {
  /** The tree the days are of: that of the head of this size. */
  tree_size: number;
  /** The dates with a leaf in that tree, oldest first. */
  days: string[];
  /** Logged days left out: older than the reader's tier reads. */
  beyond_history: number;
}

/** The days logged in the tree of the head signed at `treeSize` (default: the newest); from `earliest` on when given. */
export async function trackDays(sql: Sql, treeSize?: number, earliest: string | null = null): Promise<LoggedDays> {
  const head = await trackHead(sql, treeSize);
  const all = await loggedDates(sql, head.tree_size);
  const days = earliest === null ? all : all.filter((date) => date >= earliest);
  return { tree_size: head.tree_size, days, beyond_history: all.length - days.length };
}

/** RFC 9162's consistency proof from the tree of `from` leaves to that of `to` (default: the newest head's); both signed sizes. */
export async function trackConsistency(sql: Sql, from: number, to?: number): Promise<TrackConsistency> {
  if (from < 1) throw validationError([{ field: 'from', message: `must be at least 1: every tree is consistent with the empty one (got ${from})` }]);
  const second = await trackHead(sql, to);
  if (from > second.tree_size) throw validationError([{ field: 'from', message: `must not be greater than to (${second.tree_size})` }]);
  if (!(await trackHeadAt(sql, from))) throw noHead('from', from);
  const ranges = consistencyPath(from, second.tree_size);
  return { from, to: second.tree_size, proof: proofHashes(ranges, await trackNodes(sql, nodesOf(ranges))).map(toHex) };
}
