/**
 * The signal-day record (src/core/records/signal-day.ts) as the track log and a subscriber's check use it: the
 * versions' frozen fields, the package `GET /v1/signals/{date}` serves built from the record, and the check of a
 * day (src/signals/track/day-check.ts) on a two-leaf log made here, whose proofs the RFC 9162 verifier of the
 * tests (test/helpers/rfc9162.ts) computes: a leaf written before entry types and one written now both verify
 * against a package that serves more fields than they log, and a changed field of the version fails `served`.
 */
import { describe, expect, it } from 'vitest';
import {
  differingSignalDayFields,
  signalDayFieldPaths,
  signalDayFields,
  signalDayProblems,
  signalDayRecord,
  type SignalDayRow,
} from '../../src/core/records/signal-day.js';
import { createSigner, generateKeyPair } from '../../src/core/crypto/ed25519.js';
import { keyIdOf, signTreeHead } from '../../src/core/log/tree-head.js';
import type { DayProof } from '../../src/signals/ops/track-log.js';
import { checkDayInTrackLog, type DayCheckInput } from '../../src/signals/track/day-check.js';
import { leafText, type TrackLeaf, type TrackLeafKind } from '../../src/signals/track/leaf.js';
import { checkTrackLog } from '../../src/signals/track/log-check.js';
import { signalPackage } from '../../src/signals/views.js';
import { legacyLeaf } from '../helpers/legacy-leaf.js';
import { rfcLeafHash, rfcRoot } from '../helpers/rfc9162.js';

const row = (date: string, availableAt: string | null = null): SignalDayRow & { risk_score: number } => ({
  date,
  available_at: availableAt,
  regime: 'tightening',
  prob_expansion: 0.1,
  prob_recovery: 0.15,
  prob_tightening: 0.6,
  prob_risk_off: 0.15,
  confidence: 'HIGH',
  persistence_days: 4,
  expected_duration_remaining_days: 21,
  level_bn: 6012.75,
  change_4w_bn: 12.5,
  liquidity_zscore: -0.8,
  liquidity_trend: 'CONTRACTING',
  pc1: -1.5,
  pc2: 0.75,
  pc3: 0.3,
  pc4: -0.1,
  variance_explained_pct: [38.5, 22, 14, 9.5],
  pca_fit_date: '2025-06-02',
  hmm_fit_date: '2025-06-02',
  data_vintage: new Date('2025-06-10T10:00:00.000Z'),
  risk_score: 62,
});

const V1_PATHS = [
  'date',
  'available_at',
  'regime.most_likely',
  'regime.probabilities.expansion',
  'regime.probabilities.recovery',
  'regime.probabilities.tightening',
  'regime.probabilities.risk_off',
  'regime.confidence',
  'regime.persistence_days',
  'regime.expected_duration_remaining_days',
  'net_liquidity.level_bn',
  'net_liquidity.change_4w_bn',
  'net_liquidity.zscore',
  'net_liquidity.trend',
  'pca_factors.pc1',
  'pca_factors.pc2',
  'pca_factors.pc3',
  'pca_factors.pc4',
  'pca_factors.variance_explained_pct',
  'model_metadata.pca_fit_date',
  'model_metadata.hmm_fit_date',
  'model_metadata.data_vintage',
];

/** A package as a later API might serve it: the record's fields and more, at the top and inside its objects. */
const withMoreFields = (pkg: Record<string, unknown>): Record<string, unknown> => ({
  ...pkg,
  risk_budget: 0.25,
  regime: { ...(pkg.regime as object), label: 'Tightening' },
  links: { self: `/v1/signals/${String(pkg.date)}` },
});

/** Sets the value at a dotted path of a deep copy. */
function withField(doc: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const copy = structuredClone(doc);
  const names = path.split('.');
  let at = copy;
  for (const name of names.slice(0, -1)) at = at[name] as Record<string, unknown>;
  at[names.at(-1)!] = value;
  return copy;
}

describe('the signal-day record', () => {
  it('defines exactly its frozen fields in v1 and, for leaves written before entry types, the same in v0', () => {
    expect(signalDayFieldPaths('signal-day/v1')).toEqual(V1_PATHS);
    expect(signalDayFieldPaths('signal-day/v0')).toEqual(V1_PATHS);
    const record = signalDayRecord(row('2025-06-09', '2025-06-10T10:30:00.000Z'));
    expect(signalDayProblems('signal-day/v1', record)).toEqual([]);
    // The row's other columns (risk_score) are not the record's.
    expect(record).not.toHaveProperty('risk_score');
    expect(signalDayProblems('signal-day/v1', { ...record, risk_score: 62 })).toEqual(['risk_score is not a field of signal-day/v1']);
    const { net_liquidity: _, ...lacking } = record;
    expect(signalDayProblems('signal-day/v1', lacking)).toEqual(['net_liquidity is missing']);
  });

  it('is what GET /v1/signals/{date} serves, and what the package served before records held', () => {
    const r = row('2025-06-09', '2025-06-10T10:30:00.000Z');
    expect(signalPackage(r as never)).toEqual(signalDayRecord(r));
    expect(legacyLeaf(r, 0).leaf.record).toEqual(signalDayRecord(r));
  });

  it('is taken from a served document by its fields alone: members the API adds are left out, a missing field is named', () => {
    const record = signalDayRecord(row('2025-06-09'));
    expect(signalDayFields('signal-day/v1', withMoreFields(record))).toEqual({ record, missing: [] });
    const { pca_factors: _, ...lacking } = record;
    expect(signalDayFields('signal-day/v1', withField(lacking, 'regime.confidence', undefined)).missing).toEqual([
      'regime.confidence',
      'pca_factors.pc1',
      'pca_factors.pc2',
      'pca_factors.pc3',
      'pca_factors.pc4',
      'pca_factors.variance_explained_pct',
    ]);
    expect(differingSignalDayFields('signal-day/v1', record, withMoreFields(record))).toEqual([]);
    for (const path of V1_PATHS)
      expect(differingSignalDayFields('signal-day/v1', record, withField(withMoreFields(record), path, 'changed')), path).toEqual([path]);
  });
});

describe("a day's check against a log of a leaf written before entry types and one written now", () => {
  const key = generateKeyPair();
  const sign = createSigner(key.secretKey);
  const keyId = keyIdOf(key.publicKey);
  const loggedAt = Date.parse('2025-06-11T10:35:00.000Z');
  const oldRow = row('2025-06-09', '2025-06-10T10:30:00.000Z');
  const newRow = row('2025-06-10', '2025-06-11T10:30:00.000Z');
  // Logged a day late: past its first open, so a backfill.
  const old = legacyLeaf(oldRow, loggedAt);
  const current: TrackLeaf = {
    date: newRow.date,
    entry_type: 'signal-day/v1',
    kind: 'live',
    logged_at: new Date(loggedAt).toISOString(),
    record: signalDayRecord(newRow),
    run_id: null,
    supersedes: null,
  };

  /** The proof of leaf `index` (of two) as the service serves it. */
  function proofOf(texts: string[], index: number): DayProof {
    const data = texts.map((t) => new Uint8Array(Buffer.from(t, 'utf8')));
    const { date, kind } = JSON.parse(texts[index]!) as { date: string; kind: TrackLeafKind };
    return {
      date,
      tree_size: texts.length,
      leaves: [
        {
          leaf_index: index,
          kind,
          data: texts[index]!,
          leaf_hash: rfcLeafHash(data[index]!).toString('hex'),
          audit_path: [rfcLeafHash(data[1 - index]!).toString('hex')],
        },
      ],
    };
  }

  /** The check of `date` in the log holding `texts`, with `served` as the package served for it now. */
  function check(texts: string[], date: string, served: Record<string, unknown> | null): ReturnType<typeof checkDayInTrackLog> {
    const data = texts.map((t) => new Uint8Array(Buffer.from(t, 'utf8')));
    const head = signTreeHead({ tree_size: texts.length, root_hash: rfcRoot(data).toString('hex'), timestamp: loggedAt + 1000 }, sign, keyId);
    const index = texts.findIndex((t) => (JSON.parse(t) as { date: string }).date === date);
    const input: DayCheckInput = {
      date,
      saved: head,
      head,
      consistency: { from: texts.length, to: texts.length, proof: [] },
      proof: proofOf(texts, index),
      served,
      publicKey: key.publicKey,
    };
    return checkDayInTrackLog(input);
  }
  const failedChecks = (result: ReturnType<typeof checkDayInTrackLog>): string[] => result.checks.filter((c) => c.status === 'fail').map((c) => c.check);

  it('proves both days against packages that serve more fields than their leaves log', () => {
    const texts = [old.text, leafText(current)];
    for (const [date, r] of [
      [oldRow.date, oldRow],
      [newRow.date, newRow],
    ] as const) {
      const result = check(texts, date, withMoreFields(signalPackage(r as never)));
      expect(
        result.checks.map((c) => `${c.check}:${c.status}`),
        date,
      ).toEqual(['saved_head:pass', 'head:pass', 'growth:pass', 'leaves:pass', 'kinds:pass', 'logged_at:pass', 'served:pass']);
    }
    expect(check(texts, oldRow.date, signalPackage(oldRow as never)).checks.find((c) => c.check === 'leaves')!.detail).toContain('signal-day/v0');
    expect(check(texts, newRow.date, signalPackage(newRow as never)).checks.find((c) => c.check === 'leaves')!.detail).toContain('signal-day/v1');
  });

  it("fails served, naming the field, when a field of the leaf's version changed or is no longer served", () => {
    const texts = [old.text, leafText(current)];
    for (const [date, r] of [
      [oldRow.date, oldRow],
      [newRow.date, newRow],
    ] as const) {
      const changed = check(texts, date, withField(withMoreFields(signalPackage(r as never)), 'net_liquidity.level_bn', 1));
      expect(failedChecks(changed), date).toEqual(['served']);
      expect(changed.checks.at(-1)!.detail).toContain('net_liquidity.level_bn changed');
      const gone = check(texts, date, withField(signalPackage(r as never), 'regime.most_likely', undefined));
      expect(gone.checks.at(-1)!.detail).toContain('regime.most_likely missing');
    }
  });

  it('fails leaves for an entry type it does not read, and for a record with a field its version does not define', () => {
    const newer = leafText(current).replace('"entry_type":"signal-day/v1"', '"entry_type":"signal-day/v2"');
    const result = check([old.text, newer], newRow.date, signalPackage(newRow as never));
    expect(failedChecks(result)).toEqual(['leaves', 'kinds', 'served']);
    expect(result.checks.find((c) => c.check === 'leaves')!.detail).toContain('"signal-day/v2" is not one this tradeseal reads');
    const padded = leafText({ ...current, record: { ...current.record, risk_budget: 0.25 } });
    expect(check([old.text, padded], newRow.date, signalPackage(newRow as never)).checks.find((c) => c.check === 'leaves')).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('risk_budget is not a field of signal-day/v1'),
    });
  });

  it('checks every day in one run: the log once, each day apart, a summary naming the days that failed', () => {
    const texts = [old.text, leafText(current)];
    const { root_hash: root } = check(texts, oldRow.date, null);
    const signed = signTreeHead({ tree_size: 2, root_hash: root, timestamp: loggedAt + 1000 }, sign, keyId);
    const run = (served: Record<string, unknown>[]) =>
      checkTrackLog({
        saved: signed,
        head: signed,
        consistency: { from: 2, to: 2, proof: [] },
        publicKey: key.publicKey,
        beyondHistory: 3,
        days: [
          { date: oldRow.date, proof: proofOf(texts, 0), served: served[0]! },
          { date: newRow.date, proof: proofOf(texts, 1), served: served[1]! },
        ],
      });
    const ok = run([withMoreFields(signalPackage(oldRow as never)), withMoreFields(signalPackage(newRow as never))]);
    expect(ok).toMatchObject({ valid: true, summary: { days: 2, proven: 2, failed: [], beyond_history: 3 } });
    expect(ok.checks.map((c) => c.check)).toEqual(['saved_head', 'head', 'growth']);
    expect(ok.days.map((d) => d.checks.map((c) => c.check))).toEqual([
      ['leaves', 'kinds', 'logged_at', 'served'],
      ['leaves', 'kinds', 'logged_at', 'served'],
    ]);
    const bad = run([signalPackage(oldRow as never), withField(signalPackage(newRow as never), 'regime.confidence', 'LOW')]);
    expect(bad).toMatchObject({ valid: false, summary: { days: 2, proven: 1, failed: [newRow.date] } });
    expect(
      checkTrackLog({ saved: signed, head: signed, consistency: { from: 2, to: 2, proof: [] }, publicKey: key.publicKey, beyondHistory: 0, days: [] }).valid,
    ).toBe(false);
  });
});
