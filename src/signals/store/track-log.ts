/**
 * The signal service's track log in the store (migration 0025): appending the days a publication writes, in its
 * transaction, and reading heads, leaves and nodes for proofs. One append at a time: the state row is locked for
 * the transaction (a pipeline run holds the run lock besides).
 *
 * Every perfect subtree is stored once complete, level 0 (the leaf hashes) included: a log of a leaf per
 * published day stays small, and a proof reads O(log n) rows by primary key.
 */
import type { Sql, TransactionSql } from 'postgres';
import { appendLeaves, frontierOf, type StoredNode } from '../../core/log/append.js';
import { leafHash, toHex } from '../../core/log/hashing.js';
import { nodeKey, type NodeId, type NodeLookup } from '../../core/log/subtrees.js';
import { signTreeHead, type SignedTreeHead } from '../../core/log/tree-head.js';
import { asHead, type HeadRow } from '../../store/log-read.js';
import { TradesealError } from '../../core/errors.js';
import type { TrackLogKey } from '../track/key.js';
import { differingSignalDayFields, SIGNAL_DAY_CURRENT, signalDayRecord, type SignalDayV1 } from '../../core/records/signal-day.js';
import { unloggedSignals } from './published.js';
import { logHeadEvent } from '../webhooks/log-head.js';
import { enqueueEvent } from '../webhooks/regime-change.js';
import { kindOfLeaf, leafText, parseLeaf, type TrackLeaf, type TrackLeafKind } from '../track/leaf.js';

type Db = Sql | TransactionSql;

/** A day as published: its date and its signal-day record (src/core/records/signal-day.ts), what its leaf holds. */
export interface PublishedDay {
  date: string;
  record: SignalDayV1;
}

export interface LoggedLeaf {
  leaf_index: number;
  date: string;
  kind: TrackLeafKind;
}

export interface TrackAppend {
  appended: LoggedLeaf[];
  /** Days whose package is the one their newest leaf holds already: no new leaf. */
  unchanged: number;
  /** The head signed over the new leaves; null when nothing was appended. */
  head: SignedTreeHead | null;
}

const utf8 = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'utf8'));

/** The hashes of `ids`, read in one query, as a lookup that refuses a node the store lacks. */
export async function trackNodes(sql: Db, ids: readonly NodeId[]): Promise<NodeLookup> {
  const rows =
    ids.length === 0
      ? []
      : await sql<Array<{ level: number; idx: number; hash: Buffer }>>`
    select n.level, n.idx, n.hash from signal_log_nodes n
    join unnest(${ids.map((id) => String(id.level))}::smallint[], ${ids.map((id) => String(id.index))}::bigint[]) as w(level, idx)
      on n.level = w.level and n.idx = w.idx`;
  const found = new Map(rows.map((row) => [nodeKey({ level: row.level, index: row.idx }), new Uint8Array(row.hash)]));
  return (id) => {
    const hash = found.get(nodeKey(id));
    if (!hash) throw new TradesealError('store_error', `the track log lacks its node ${nodeKey(id)} (level:index)`);
    return hash;
  };
}

/** A stored leaf read back; one this code cannot read (another entry type, a newer tradeseal's) is named, not a crash. */
function storedLeaf(index: number, data: Buffer): TrackLeaf {
  try {
    return parseLeaf(data.toString('utf8'));
  } catch (error) {
    throw new TradesealError('store_error', `leaf ${index} of the track log cannot be read: ${(error as Error).message}`);
  }
}

/** The log's size and the time of its last head, as locked for an append. */
export interface TrackLogState {
  tree_size: number;
  last_timestamp_ms: number;
}

/** Locks the log's state row for the transaction (one append at a time) and reads it. */
export async function lockTrackLog(tx: Db): Promise<TrackLogState> {
  const [state] = await tx<TrackLogState[]>`select tree_size, last_timestamp_ms from signal_log_state for update`;
  if (!state) throw new TradesealError('store_error', 'signal_log_state has no row: migration 0025 did not run');
  return state;
}

/**
 * Logs the days a publication writes (in its transaction `tx`, after their rows; call it inside one): a leaf for
 * each day whose record is not the one its newest leaf holds, in date order, then one signed head over them.
 * A day's newest leaf is compared in the fields of its own entry type, so a day logged in an older version gets
 * a new leaf only when one of that version's fields changes, not because the current version exists.
 * `nowMs` is the head's timestamp unless the previous head's is later (heads never go back in time).
 * `backfill`: days published before the log existed, whose first leaves are never live.
 */
export async function appendPublishedDays(
  tx: Db,
  days: readonly PublishedDay[],
  key: TrackLogKey,
  nowMs: number,
  runId: string | null,
  options: { backfill?: boolean } = {},
): Promise<TrackAppend> {
  const state = await lockTrackLog(tx);
  const timestamp = Math.max(nowMs, state.last_timestamp_ms);
  const loggedAt = new Date(timestamp).toISOString();
  const sorted = [...days].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  const newest =
    sorted.length === 0
      ? []
      : await tx<Array<{ date: string; leaf_index: number; data: Buffer }>>`
    select distinct on (date) date::text as date, leaf_index, data from signal_log_leaves
    where date = any(${sorted.map((d) => d.date)}::date[]) order by date, leaf_index desc`;
  const previous = new Map(newest.map((row) => [row.date, { leaf_index: row.leaf_index, leaf: storedLeaf(row.leaf_index, row.data) }]));
  const leaves: TrackLeaf[] = [];
  for (const day of sorted) {
    const before = previous.get(day.date);
    if (before && differingSignalDayFields(before.leaf.entry_type, before.leaf.record, day.record).length === 0) continue;
    const supersedes = before?.leaf_index ?? null;
    const kind = kindOfLeaf(supersedes, day.record.available_at, timestamp, options.backfill === true);
    leaves.push({ date: day.date, entry_type: SIGNAL_DAY_CURRENT, kind, logged_at: loggedAt, record: day.record, run_id: runId, supersedes });
  }
  const unchanged = sorted.length - leaves.length;
  if (leaves.length === 0) return { appended: [], unchanged, head: null };
  return { ...(await appendTrackLeaves(tx, state, leaves, key, timestamp)), unchanged };
}

/**
 * Appends `leaves`, as given, after `state` (locked by lockTrackLog in this transaction), and signs one head over
 * them at `timestamp` (their `logged_at`); every Pro webhook receives the head. appendPublishedDays builds the
 * leaves; a leaf of an older entry type is written in its own form (../track/leaf.ts).
 */
export async function appendTrackLeaves(
  tx: Db,
  state: TrackLogState,
  leaves: readonly TrackLeaf[],
  key: TrackLogKey,
  timestamp: number,
): Promise<{ appended: LoggedLeaf[]; head: SignedTreeHead }> {
  const texts = leaves.map(leafText);
  const ids = frontierOf(state.tree_size);
  const lookup = await trackNodes(tx, ids);
  const frontier: StoredNode[] = ids.map((id) => ({ ...id, hash: lookup(id) }));
  const grown = appendLeaves(
    state.tree_size,
    frontier,
    texts.map((text) => leafHash(utf8(text))),
  );
  await tx`
    insert into signal_log_nodes (level, idx, hash)
    select level, idx, decode(hash, 'hex')
    from unnest(${grown.nodes.map((n) => String(n.level))}::smallint[], ${grown.nodes.map((n) => String(n.index))}::bigint[], ${grown.nodes.map((n) => toHex(n.hash))}::text[]) as n(level, idx, hash)`;
  const indexes = leaves.map((_, i) => String(state.tree_size + i));
  await tx`
    insert into signal_log_leaves (leaf_index, date, kind, run_id, data, logged_at_ms)
    select leaf_index, date, kind, run_id, convert_to(data, 'UTF8'), ${timestamp}
    from unnest(${indexes}::bigint[], ${leaves.map((l) => l.date)}::date[], ${leaves.map((l) => l.kind)}::text[], ${leaves.map((l) => l.run_id)}::uuid[], ${texts}::text[])
      as l(leaf_index, date, kind, run_id, data)`;
  const head = signTreeHead({ tree_size: grown.size, root_hash: toHex(grown.root), timestamp }, key.sign, key.keyId);
  await tx`
    insert into signal_log_heads (tree_size, root_hash, timestamp_ms, signature, key_id)
    values (${head.tree_size}, ${Buffer.from(grown.root)}, ${timestamp}, ${Buffer.from(head.signature, 'base64')}, ${head.key_id})`;
  await tx`update signal_log_state set tree_size = ${grown.size}, last_timestamp_ms = ${timestamp}`;
  const appended = leaves.map((l, i) => ({ leaf_index: state.tree_size + i, date: l.date, kind: l.kind }));
  // Every Pro webhook receives the new head, in this transaction: a subscriber keeps each head without asking.
  await enqueueEvent(tx, logHeadEvent(head, appended));
  return { appended, head };
}

/** The newest signed head, or null while nothing is logged. */
export async function latestTrackHead(sql: Db): Promise<SignedTreeHead | null> {
  const [row] = await sql<HeadRow[]>`select tree_size, root_hash, timestamp_ms, signature, key_id from signal_log_heads order by tree_size desc limit 1`;
  return row ? asHead(row) : null;
}

/** The head signed at exactly `treeSize` (heads are signed at the end of each publication that logged a day). */
export async function trackHeadAt(sql: Db, treeSize: number): Promise<SignedTreeHead | null> {
  const [row] = await sql<HeadRow[]>`select tree_size, root_hash, timestamp_ms, signature, key_id from signal_log_heads where tree_size = ${treeSize}`;
  return row ? asHead(row) : null;
}

export interface StoredTrackLeaf {
  leaf_index: number;
  kind: TrackLeafKind;
  /** The leaf data: the canonical JSON text. */
  data: string;
}

/** A day's leaves, oldest first (the first is the original). */
export async function dayLeaves(sql: Db, date: string): Promise<StoredTrackLeaf[]> {
  const rows = await sql<Array<{ leaf_index: number; kind: TrackLeafKind; data: Buffer }>>`
    select leaf_index, kind, data from signal_log_leaves where date = ${date} order by leaf_index`;
  return rows.map((row) => ({ leaf_index: row.leaf_index, kind: row.kind, data: row.data.toString('utf8') }));
}

/** The dates with a leaf among the first `treeSize` leaves (the tree of the head of that size), oldest first. */
export async function loggedDates(sql: Db, treeSize: number): Promise<string[]> {
  const rows = await sql<Array<{ date: string }>>`select distinct date::text as date from signal_log_leaves where leaf_index < ${treeSize} order by date`;
  return rows.map((row) => row.date);
}

/** The kind of every logged day's first leaf, by date: which days were logged live. */
export async function firstLeafKinds(sql: Db): Promise<Map<string, TrackLeafKind>> {
  const rows = await sql<Array<{ date: string; kind: TrackLeafKind }>>`
    select distinct on (date) date::text as date, kind from signal_log_leaves order by date, leaf_index`;
  return new Map(rows.map((row) => [row.date, row.kind]));
}

/**
 * Logs the published days that have no leaf (published before the log existed), as backfills, under one new head,
 * without rewriting them. The state row is locked first, so the days read are those no publication is changing.
 */
export async function logUnloggedDays(tx: Db, key: TrackLogKey, nowMs: number): Promise<TrackAppend> {
  await tx`select 1 from signal_log_state for update`;
  const rows = await unloggedSignals(tx);
  return appendPublishedDays(
    tx,
    rows.map((row) => ({ date: row.date, record: signalDayRecord(row) })),
    key,
    nowMs,
    null,
    { backfill: true },
  );
}
