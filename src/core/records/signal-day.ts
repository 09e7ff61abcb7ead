/**
 * The signal-day record: what the signal service's track log holds of a published day, as a versioned entry
 * type, and what `GET /v1/signals/{date}` is built from (src/signals/views.ts). The log outlives the HTTP API:
 * a response may gain fields, a logged record never does; a subscriber's check compares the fields the logged
 * record's version defines and nothing else, so a field the API adds fails no day already logged.
 *
 * How an entry names its type, written down: one member, `entry_type`, whose value names the type and its
 * version together (`signal-day/v1`), as RFC 9162's `VersionedTransType` (`x509_entry_v2`) and in-toto's
 * `_type` do, rather than Rekor's pair of `kind` and `apiVersion`: a reader dispatches on one string, refuses
 * any it does not know, and no combination of a type with a version it never had can be written. (The track
 * leaf's own `kind`, live, backfill or republication, says something else: src/signals/track/leaf.ts.)
 *
 * The versions, each frozen once logs hold it (a new field is a new version, never an edit of one):
 * - `signal-day/v1`: the fields of SIGNAL_DAY_FIELDS below. What every new leaf holds, under `record`.
 * - `signal-day/v0`: the leaves written before entry types, which hold the day under `package` and have no
 *   `entry_type`: the signal package as `GET /v1/signals/{date}` served it from 2026-11-27 (when
 *   `available_at` joined it) until the record took its place. Its fields are exactly v1's, so v0 is never
 *   written again and a v0 leaf verifies as it always did.
 *
 * Pure: rows in, records out; documents in, fields out.
 */
import { canonicalJson } from '../crypto/jcs.js';
import type { Regime } from '../vocabulary.js';

export const SIGNAL_DAY_V0 = 'signal-day/v0';
export const SIGNAL_DAY_V1 = 'signal-day/v1';
/** Every version a reader of the log knows, oldest first; the last is what new leaves hold. */
export const SIGNAL_DAY_ENTRY_TYPES = [SIGNAL_DAY_V0, SIGNAL_DAY_V1] as const;
export type SignalDayEntryType = (typeof SIGNAL_DAY_ENTRY_TYPES)[number];
/** The version new leaves are written in. */
export const SIGNAL_DAY_CURRENT = SIGNAL_DAY_V1;

/** The fields an entry type defines: a member is either a field (`true`) or an object of further fields. */
export interface FieldSet {
  readonly [member: string]: true | FieldSet;
}

const V1_FIELDS = {
  date: true,
  available_at: true,
  regime: {
    most_likely: true,
    probabilities: { expansion: true, recovery: true, tightening: true, risk_off: true },
    confidence: true,
    persistence_days: true,
    expected_duration_remaining_days: true,
  },
  net_liquidity: { level_bn: true, change_4w_bn: true, zscore: true, trend: true },
  pca_factors: { pc1: true, pc2: true, pc3: true, pc4: true, variance_explained_pct: true },
  model_metadata: { pca_fit_date: true, hmm_fit_date: true, data_vintage: true },
} as const satisfies FieldSet;

/** Exactly the fields each version defines. v0's are v1's (see the module comment). */
export const SIGNAL_DAY_FIELDS: Readonly<Record<SignalDayEntryType, FieldSet>> = Object.freeze({
  [SIGNAL_DAY_V0]: V1_FIELDS,
  [SIGNAL_DAY_V1]: V1_FIELDS,
});

/** A signal-day/v1 record. */
export type SignalDayV1 = {
  date: string;
  /** When the day was published (ISO-8601 UTC); null for days published before release-time data. */
  available_at: string | null;
  regime: {
    most_likely: Regime;
    probabilities: { expansion: number; recovery: number; tightening: number; risk_off: number };
    confidence: string;
    persistence_days: number;
    expected_duration_remaining_days: number;
  };
  net_liquidity: { level_bn: number; change_4w_bn: number; zscore: number; trend: string };
  pca_factors: { pc1: number; pc2: number; pc3: number; pc4: number; variance_explained_pct: number[] };
  model_metadata: { pca_fit_date: string; hmm_fit_date: string; data_vintage: string };
};

/** The published row a record is built from (a row of `signal_days` as the store reads it). */
export interface SignalDayRow {
  date: string;
  available_at: string | null;
  regime: Regime;
  prob_expansion: number;
  prob_recovery: number;
  prob_tightening: number;
  prob_risk_off: number;
  confidence: string;
  persistence_days: number;
  expected_duration_remaining_days: number;
  level_bn: number;
  change_4w_bn: number;
  liquidity_zscore: number;
  liquidity_trend: string;
  pc1: number;
  pc2: number;
  pc3: number;
  pc4: number;
  variance_explained_pct: number[];
  pca_fit_date: string;
  hmm_fit_date: string;
  data_vintage: Date;
}

/** The day's signal-day/v1 record, from its published row. */
export function signalDayRecord(r: SignalDayRow): SignalDayV1 {
  return {
    date: r.date,
    available_at: r.available_at,
    regime: {
      most_likely: r.regime,
      probabilities: { expansion: r.prob_expansion, recovery: r.prob_recovery, tightening: r.prob_tightening, risk_off: r.prob_risk_off },
      confidence: r.confidence,
      persistence_days: r.persistence_days,
      expected_duration_remaining_days: r.expected_duration_remaining_days,
    },
    net_liquidity: { level_bn: r.level_bn, change_4w_bn: r.change_4w_bn, zscore: r.liquidity_zscore, trend: r.liquidity_trend },
    pca_factors: { pc1: r.pc1, pc2: r.pc2, pc3: r.pc3, pc4: r.pc4, variance_explained_pct: r.variance_explained_pct },
    model_metadata: { pca_fit_date: r.pca_fit_date, hmm_fit_date: r.hmm_fit_date, data_vintage: r.data_vintage.toISOString() },
  };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function paths(fields: FieldSet, prefix = ''): string[] {
  return Object.entries(fields).flatMap(([name, sub]) => (sub === true ? [`${prefix}${name}`] : paths(sub, `${prefix}${name}.`)));
}

/** The fields a version defines, as dotted paths (`regime.probabilities.expansion`), in definition order. */
export const signalDayFieldPaths = (type: SignalDayEntryType): string[] => paths(SIGNAL_DAY_FIELDS[type]);

/** The value at a dotted path of `doc`; undefined when a member on the way is missing or not an object. */
function at(doc: unknown, path: string): unknown {
  let value = doc;
  for (const name of path.split('.')) {
    if (!isObject(value) || !Object.hasOwn(value, name)) return undefined;
    value = value[name];
  }
  return value;
}

/**
 * The fields `type` defines, taken from a served document (the package `GET /v1/signals/{date}` answers, with
 * whatever the API adds besides), and the paths of those it lacks. What a check compares with a logged record.
 */
export function signalDayFields(type: SignalDayEntryType, doc: unknown): { record: Record<string, unknown>; missing: string[] } {
  const missing: string[] = [];
  const pick = (fields: FieldSet, value: unknown, prefix: string): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const [name, sub] of Object.entries(fields)) {
      const path = `${prefix}${name}`;
      const member = isObject(value) && Object.hasOwn(value, name) ? value[name] : undefined;
      if (member === undefined) missing.push(...(sub === true ? [path] : paths(sub, `${path}.`)));
      else out[name] = sub === true ? member : pick(sub, member, `${path}.`);
    }
    return out;
  };
  return { record: pick(SIGNAL_DAY_FIELDS[type], doc, ''), missing };
}

/**
 * What is wrong with a logged record of `type`: a field it lacks, a member it holds that the version does not
 * define, an object where a field is expected to hold others. Empty for a record of exactly the version's fields.
 */
export function signalDayProblems(type: SignalDayEntryType, record: unknown): string[] {
  const problems: string[] = [];
  const walk = (fields: FieldSet, value: unknown, prefix: string): void => {
    if (!isObject(value)) {
      problems.push(`${prefix === '' ? 'the record' : prefix.slice(0, -1)} is not an object`);
      return;
    }
    for (const name of Object.keys(value)) if (!Object.hasOwn(fields, name)) problems.push(`${prefix}${name} is not a field of ${type}`);
    for (const [name, sub] of Object.entries(fields)) {
      if (!Object.hasOwn(value, name)) problems.push(`${prefix}${name} is missing`);
      else if (sub !== true) walk(sub, value[name], `${prefix}${name}.`);
    }
  };
  walk(SIGNAL_DAY_FIELDS[type], record, '');
  return problems;
}

const fieldText = (value: unknown): string => (value === undefined ? '(absent)' : canonicalJson(value));

/**
 * The fields of `type` whose values differ between a logged record and a served document (absent on either side
 * counts as differing), compared in canonical JSON (RFC 8785); members `type` does not define are not compared.
 */
export function differingSignalDayFields(type: SignalDayEntryType, logged: unknown, served: unknown): string[] {
  return signalDayFieldPaths(type).filter((path) => fieldText(at(logged, path)) !== fieldText(at(served, path)));
}
