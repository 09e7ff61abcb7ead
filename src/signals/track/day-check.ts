/**
 * The offline check of a published day against the track log, as `tradeseal signals verify` runs it: a head the
 * subscriber saved earlier, the service's newest head, the consistency proof between them, the day's leaves with
 * their inclusion proofs, the package the service serves for the day now, and the public key the subscriber
 * trusts. Pure: it trusts none of the answers, only the key and the saved head.
 *
 * Each check is named, so a failure says which one failed:
 * - `saved_head`: the saved head names the key and its signature verifies under it;
 * - `head`: the same for the newest head;
 * - `growth`: the log only grew since the saved head: not smaller, not older, and the saved tree is a prefix of the
 *   newest (RFC 9162 §2.1.4.2; equal sizes need equal roots). A truncated or forked log fails here;
 * - `leaves`: each of the day's leaves is in canonical form, of an entry type this code reads with exactly its
 *   version's fields (./leaf.ts), names the day, and with its audit path leads to the newest head's root
 *   (RFC 9162 §2.1.3.2); the proofs are for that head's tree;
 * - `kinds`: the first leaf is the original (no `supersedes`) and claims no more than its own fields give
 *   (`live` only when logged within the live window of its `available_at`, ./leaf.ts); every later leaf is a
 *   `republication` of the one before;
 * - `logged_at`: no leaf was logged after the newest head was signed, and a leaf within the saved head was logged
 *   no later than that head: the saved head is the subscriber's own evidence of when the leaf existed;
 * - `served`: the package the service serves now holds the day's newest leaf's record: every field the leaf's
 *   entry type defines (src/core/records/signal-day.ts), with the value logged. Fields the API serves besides
 *   are not compared, so a field added to `GET /v1/signals/{date}` fails no day logged before it; a day
 *   rewritten without a new leaf, or removed after it was logged, fails here.
 *
 * The checks of the log (`saved_head`, `head`, `growth`) and those of a day (the rest) are apart, so that a run
 * over every logged day (./log-check.ts) checks the log once.
 */
import { equalBytes, hashFromHex, leafHash, toHex } from '../../core/log/hashing.js';
import type { NamedCheck } from '../../core/log/trace-check.js';
import { keyIdOf, verifyTreeHeadSignature, type SignedTreeHead } from '../../core/log/tree-head.js';
import { verifyConsistency, verifyInclusion } from '../../core/log/verify.js';
import { differingSignalDayFields, signalDayFields } from '../../core/records/signal-day.js';
import type { DayProof, TrackConsistency } from '../ops/track-log.js';
import { kindAllowed, kindOfLeaf, parseLeaf, type TrackLeaf, type TrackLeafKind } from './leaf.js';

export type DayCheckName = 'saved_head' | 'head' | 'growth' | 'leaves' | 'kinds' | 'logged_at' | 'served';

export type DayCheck = NamedCheck<DayCheckName>;

export interface DayLeafSummary {
  leaf_index: number;
  kind: TrackLeafKind;
  logged_at: string;
  /** The day's first leaf: what was published first, whatever came later. */
  original: boolean;
  /** Whether the head the subscriber saved already held it. */
  in_saved_head: boolean;
}

export interface DayLogCheck {
  valid: boolean;
  date: string;
  saved_tree_size: number;
  tree_size: number;
  root_hash: string;
  key_id: string;
  /** The day's leaves as logged, oldest first (empty when they could not be read). */
  leaves: DayLeafSummary[];
  checks: DayCheck[];
}

/** What the log's checks read: the saved head, the newest, the proof between them, and the key trusted. */
export interface LogCheckInput {
  saved: SignedTreeHead;
  head: SignedTreeHead;
  /** The consistency proof from the saved head's size to the newest's, or why the service gave none. */
  consistency: TrackConsistency | string;
  publicKey: Uint8Array;
}

/** What a day's checks read besides the heads. */
export interface DayInput {
  date: string;
  /** The day's leaves with their proofs in the newest head's tree, or why the service gave none. */
  proof: DayProof | string;
  /** The package served now for the date; null when the service serves none (404). */
  served: Record<string, unknown> | null;
}

export interface DayCheckInput extends LogCheckInput, DayInput {
  proof: DayProof;
}

/** A day's own checks (`leaves`, `kinds`, `logged_at`, `served`) and its leaves as read. */
export interface DayVerdict {
  leaves: DayLeafSummary[];
  checks: DayCheck[];
}

const pass = (check: DayCheckName, detail: string): DayCheck => ({ check, status: 'pass', detail });
const failed = (check: DayCheckName, detail: string): DayCheck => ({ check, status: 'fail', detail });
const iso = (ms: number): string => new Date(ms).toISOString();

function headCheck(check: DayCheckName, what: string, head: SignedTreeHead, keyId: string, publicKey: Uint8Array): DayCheck {
  if (head.key_id !== keyId) return failed(check, `${what} names key ${head.key_id}; the public key given is ${keyId}`);
  const verdict = verifyTreeHeadSignature(head, publicKey);
  return verdict.valid
    ? pass(check, `${what}: ${head.tree_size} leaves at ${iso(head.timestamp)}, signed by key ${keyId}`)
    : failed(check, `${what}: ${verdict.reason}`);
}

function growthCheck(saved: SignedTreeHead, head: SignedTreeHead, consistency: TrackConsistency | string): DayCheck {
  if (head.tree_size < saved.tree_size)
    return failed('growth', `the log has ${head.tree_size} leaves, fewer than the ${saved.tree_size} of the head you saved: it was truncated`);
  if (head.timestamp < saved.timestamp)
    return failed('growth', `the newest head (${iso(head.timestamp)}) is older than the head you saved (${iso(saved.timestamp)})`);
  if (typeof consistency === 'string') return failed('growth', consistency);
  if (consistency.from !== saved.tree_size || consistency.to !== head.tree_size) {
    return failed('growth', `the consistency proof is from ${consistency.from} to ${consistency.to} leaves, not from ${saved.tree_size} to ${head.tree_size}`);
  }
  let verdict;
  try {
    verdict = verifyConsistency(
      saved.tree_size,
      head.tree_size,
      consistency.proof.map((h, i) => hashFromHex(h, `proof[${i}]`)),
      hashFromHex(saved.root_hash, 'saved root_hash'),
      hashFromHex(head.root_hash, 'root_hash'),
    );
  } catch (error) {
    verdict = { valid: false as const, reason: (error as Error).message };
  }
  return verdict.valid
    ? pass(
        'growth',
        saved.tree_size === head.tree_size
          ? `no leaf since the head you saved (${saved.tree_size} leaves, the same root)`
          : `the tree of ${saved.tree_size} leaves you saved is a prefix of the tree of ${head.tree_size}`,
      )
    : failed('growth', `the tree you saved is not a prefix of the newest (forked or rewritten): ${verdict.reason}`);
}

/** Reads and proves each leaf; the leaves read, and the failures. */
function leafChecks(day: DayInput, head: SignedTreeHead): { leaves: Array<{ index: number; leaf: TrackLeaf }>; problems: string[] } {
  const { proof, date } = day;
  if (typeof proof === 'string') return { leaves: [], problems: [proof] };
  const problems: string[] = [];
  const leaves: Array<{ index: number; leaf: TrackLeaf }> = [];
  if (proof.tree_size !== head.tree_size) problems.push(`the proofs are for a tree of ${proof.tree_size} leaves, the newest head for ${head.tree_size}`);
  if (proof.leaves.length === 0) problems.push(`no leaf of ${date} was served`);
  for (const served of proof.leaves) {
    const name = `leaf ${served.leaf_index}`;
    let leaf: TrackLeaf;
    try {
      leaf = parseLeaf(served.data);
    } catch (error) {
      problems.push(`${name}: ${(error as Error).message}`);
      continue;
    }
    if (leaf.date !== date) problems.push(`${name} is of ${leaf.date}, not ${date}`);
    const hash = leafHash(new Uint8Array(Buffer.from(served.data, 'utf8')));
    try {
      if (!equalBytes(hash, hashFromHex(served.leaf_hash, 'leaf_hash')))
        problems.push(`${name}: the leaf hash served (${served.leaf_hash}) is not SHA-256(0x00 ‖ data) (${toHex(hash)})`);
      const verdict = verifyInclusion(
        served.leaf_index,
        head.tree_size,
        hash,
        served.audit_path.map((h, i) => hashFromHex(h, `audit_path[${i}]`)),
        hashFromHex(head.root_hash, 'root_hash'),
      );
      if (!verdict.valid) problems.push(`${name}: ${verdict.reason}`);
    } catch (error) {
      problems.push(`${name}: ${(error as Error).message}`);
    }
    leaves.push({ index: served.leaf_index, leaf });
  }
  return { leaves, problems };
}

function kindProblems(leaves: ReadonlyArray<{ index: number; leaf: TrackLeaf }>, servedKinds: ReadonlyMap<number, TrackLeafKind>): string[] {
  const problems: string[] = [];
  leaves.forEach(({ index, leaf }, i) => {
    const previous = i === 0 ? null : leaves[i - 1]!.index;
    const availableAt = typeof leaf.record.available_at === 'string' ? leaf.record.available_at : null;
    const expected = kindOfLeaf(previous, availableAt, Date.parse(leaf.logged_at));
    if (leaf.supersedes !== previous)
      problems.push(`leaf ${index} supersedes ${leaf.supersedes ?? 'nothing'}, but the day's previous leaf is ${previous ?? 'none'}`);
    if (!kindAllowed(leaf.kind, expected))
      problems.push(
        `leaf ${index} says ${leaf.kind}; logged at ${leaf.logged_at} for a package available at ${availableAt ?? 'an unknown time'}, it is ${expected}`,
      );
    const listed = servedKinds.get(index);
    if (listed !== undefined && listed !== leaf.kind) problems.push(`leaf ${index} is listed as ${listed} but its data say ${leaf.kind}`);
  });
  return problems;
}

/** The newest leaf's record against the package served now: the fields its entry type defines, nothing else. */
function servedCheck(date: string, newest: { index: number; leaf: TrackLeaf } | undefined, served: Record<string, unknown> | null): DayCheck {
  if (!newest) return failed('served', 'no leaf to compare the package served with');
  if (served === null) return failed('served', `the service serves no package for ${date}, which the log holds: the day was removed after it was logged`);
  const { entry_type: type, record } = newest.leaf;
  const picked = signalDayFields(type, served);
  const differing = differingSignalDayFields(type, record, picked.record);
  if (differing.length === 0)
    return pass('served', `the package served for ${date} holds the record logged in leaf ${newest.index}: every field of ${type}, with the value logged`);
  const changed = differing.filter((field) => !picked.missing.includes(field));
  const what = [
    ...(changed.length > 0 ? [`${changed.join(', ')} changed`] : []),
    ...(picked.missing.length > 0 ? [`${picked.missing.join(', ')} missing`] : []),
  ].join(', ');
  return failed(
    'served',
    `the package served for ${date} is not the one logged in its newest leaf (${newest.index}, ${type}): ${what}; the day was changed without being logged`,
  );
}

/** The log's checks: both heads signed by the key, and the saved tree a prefix of the newest. */
export function checkLog(input: LogCheckInput): DayCheck[] {
  const { saved, head, publicKey } = input;
  const keyId = keyIdOf(publicKey);
  return [
    headCheck('saved_head', 'the head you saved', saved, keyId, publicKey),
    headCheck('head', 'the newest head', head, keyId, publicKey),
    growthCheck(saved, head, input.consistency),
  ];
}

/** A day's checks against the newest head (and the saved one, for `logged_at`). */
export function checkDay(day: DayInput, saved: SignedTreeHead, head: SignedTreeHead): DayVerdict {
  const { date } = day;
  const checks: DayCheck[] = [];
  const { leaves, problems } = leafChecks(day, head);
  const types = [...new Set(leaves.map(({ leaf }) => leaf.entry_type))].join(', ');
  checks.push(
    problems.length === 0
      ? pass('leaves', `${leaves.length} leaf${leaves.length === 1 ? '' : 's'} of ${date} (${types}), each in the tree of ${head.tree_size} leaves`)
      : failed('leaves', problems.join('; ')),
  );
  const listed = typeof day.proof === 'string' ? [] : day.proof.leaves;
  const kinds = kindProblems(leaves, new Map(listed.map((l) => [l.leaf_index, l.kind])));
  const first = leaves[0]?.leaf;
  checks.push(
    kinds.length === 0 && first
      ? pass(
          'kinds',
          `the original is leaf ${leaves[0]!.index} (${first.kind}, logged ${first.logged_at})${leaves.length > 1 ? `, republished ${leaves.length - 1} time${leaves.length > 2 ? 's' : ''}` : ''}`,
        )
      : failed('kinds', kinds.join('; ') || 'no leaf could be read'),
  );
  const late = leaves.flatMap(({ index, leaf }) => {
    const at = Date.parse(leaf.logged_at);
    if (at > head.timestamp) return [`leaf ${index} says it was logged at ${leaf.logged_at}, after the newest head (${iso(head.timestamp)})`];
    if (index < saved.tree_size && at > saved.timestamp)
      return [`leaf ${index} is in the head you saved (${iso(saved.timestamp)}) but says it was logged later, at ${leaf.logged_at}`];
    return [];
  });
  checks.push(late.length === 0 ? pass('logged_at', 'every leaf was logged before the heads that hold it were signed') : failed('logged_at', late.join('; ')));
  checks.push(servedCheck(date, leaves.at(-1), day.served));
  return {
    leaves: leaves.map(({ index, leaf }, i) => ({
      leaf_index: index,
      kind: leaf.kind,
      logged_at: leaf.logged_at,
      original: i === 0,
      in_saved_head: index < saved.tree_size,
    })),
    checks,
  };
}

/** Runs every check of one day; `valid` when none fails. */
export function checkDayInTrackLog(input: DayCheckInput): DayLogCheck {
  const { saved, head, date } = input;
  const day = checkDay(input, saved, head);
  const checks = [...checkLog(input), ...day.checks];
  return {
    valid: checks.every((c) => c.status !== 'fail'),
    date,
    saved_tree_size: saved.tree_size,
    tree_size: head.tree_size,
    root_hash: head.root_hash,
    key_id: head.key_id,
    leaves: day.leaves,
    checks,
  };
}
