/**
 * The signal service's track log in the store (src/signals/store/track-log.ts, src/signals/ops/track-log.ts):
 * days appended in their publishing transaction, each kind decided by its own fields, heads signed, and every
 * proof served checked by an RFC 9162 verifier written in the tests from the RFC (test/helpers/rfc9162.ts, itself
 * checked here against transparency-dev/merkle's probes), not by the project's own code.
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signalDayRecord, type SignalDayRow } from '../../src/core/records/signal-day.js';
import { canonicalJson } from '../../src/core/crypto/jcs.js';
import { verifyTreeHeadSignature } from '../../src/core/log/tree-head.js';
import type { Regime } from '../../src/core/vocabulary.js';
import { dayProof, trackConsistency, trackHead } from '../../src/signals/ops/track-log.js';
import { appendPublishedDays, appendTrackLeaves, firstLeafKinds, lockTrackLog, type PublishedDay } from '../../src/signals/store/track-log.js';
import { loadTrackLogKey, type TrackLogKey } from '../../src/signals/track/key.js';
import { kindAllowed, kindOfLeaf, liveUntil, parseLeaf } from '../../src/signals/track/leaf.js';
import { testStore, type TestStore } from '../helpers/db.js';
import { legacyLeaf, packageBeforeRecords } from '../helpers/legacy-leaf.js';
import { rfcLeafHash, rfcRoot, rfcVerifyConsistency, rfcVerifyInclusion } from '../helpers/rfc9162.js';

const VECTORS = path.join(path.dirname(fileURLToPath(import.meta.url)), '../vectors/transparency-dev-merkle/testdata');
const b64 = (text: string | null): Uint8Array => new Uint8Array(Buffer.from(text ?? '', 'base64'));
const hexBytes = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'hex'));
const utf8 = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'utf8'));

/** A published row of `date` (the columns a signal-day record is built from). */
const publishedRow = (date: string, availableAt: string | null, regime: Regime = 'expansion'): SignalDayRow => ({
  date,
  available_at: availableAt,
  regime,
  prob_expansion: 0.61,
  prob_recovery: 0.2,
  prob_tightening: 0.12,
  prob_risk_off: 0.07,
  confidence: 'MODERATE',
  persistence_days: 12,
  expected_duration_remaining_days: 30,
  level_bn: 5800.5,
  change_4w_bn: -41.25,
  liquidity_zscore: 0.4,
  liquidity_trend: 'FLAT',
  pc1: 0.5,
  pc2: -0.25,
  pc3: 0.125,
  pc4: 0,
  variance_explained_pct: [40, 25, 15, 10],
  pca_fit_date: '2026-11-02',
  hmm_fit_date: '2026-11-02',
  data_vintage: new Date('2026-11-26T11:00:00.000Z'),
});

function probes<T>(dir: string): T[] {
  const root = path.join(VECTORS, dir);
  return (readdirSync(root, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => JSON.parse(readFileSync(path.join(root, file), 'utf8')) as T);
}

describe('the independent RFC 9162 verifier of these tests', () => {
  it('accepts every valid probe of transparency-dev/merkle and refuses every tampered one', () => {
    const inclusion = probes<{ leafIdx: number; treeSize: number; root: string; leafHash: string; proof: string[] | null; wantErr: boolean }>('inclusion');
    const consistency = probes<{ size1: number; size2: number; root1: string; root2: string; proof: string[] | null; wantErr: boolean }>('consistency');
    expect(inclusion.filter((p) => p.wantErr).length).toBeGreaterThan(10);
    expect(consistency.filter((p) => p.wantErr).length).toBeGreaterThan(10);
    for (const p of inclusion) {
      const ok = p.treeSize > 0 && rfcVerifyInclusion(p.leafIdx, p.treeSize, b64(p.leafHash), (p.proof ?? []).map(b64), b64(p.root));
      expect(ok, JSON.stringify(p)).toBe(!p.wantErr);
    }
    for (const p of consistency)
      expect(rfcVerifyConsistency(p.size1, p.size2, b64(p.root1), b64(p.root2), (p.proof ?? []).map(b64)), JSON.stringify(p)).toBe(!p.wantErr);
  });
});

describe("a leaf's kind", () => {
  const available = '2026-11-26T11:30:00.000Z';
  const at = Date.parse(available);
  it("is live only for a day's first leaf logged from its available_at to the first open after it, when its regime is first traded", () => {
    // 06:30 New York on Thursday 2026-11-26 is Thanksgiving: the next open is Friday's, 09:30 New York.
    expect(new Date(liveUntil(available)).toISOString()).toBe('2026-11-27T14:30:00.000Z');
    expect(kindOfLeaf(null, available, at)).toBe('live');
    expect(kindOfLeaf(null, available, liveUntil(available))).toBe('live');
    expect(kindOfLeaf(null, available, liveUntil(available) + 1)).toBe('backfill');
    // An ordinary morning: published at 06:30, live until that day's open three hours later.
    const tuesday = '2025-06-10T10:30:00.000Z';
    expect(new Date(liveUntil(tuesday)).toISOString()).toBe('2025-06-10T13:30:00.000Z');
    // A day the night after (a night late): its first open went by, so it is a backfill.
    expect(kindOfLeaf(null, tuesday, Date.parse('2025-06-11T10:30:00.000Z'))).toBe('backfill');
    expect(kindOfLeaf(null, available, at - 1)).toBe('backfill');
    expect(kindOfLeaf(null, null, at)).toBe('backfill');
    expect(kindOfLeaf(7, available, at)).toBe('republication');
    // A day published before the log existed is never called live, whenever it is logged.
    expect(kindOfLeaf(null, available, at, true)).toBe('backfill');
    expect(kindOfLeaf(7, available, at, true)).toBe('republication');
  });

  it('may claim less than its fields allow, never more', () => {
    expect(kindAllowed('live', 'live')).toBe(true);
    expect(kindAllowed('backfill', 'live')).toBe(true);
    expect(kindAllowed('live', 'backfill')).toBe(false);
    expect(kindAllowed('republication', 'backfill')).toBe(false);
    expect(kindAllowed('backfill', 'republication')).toBe(false);
  });

  it('is read back only from a leaf in canonical form with exactly its members', () => {
    const pkg = packageBeforeRecords(publishedRow('2026-11-25', '2026-11-26T11:30:00.000Z'));
    const leaf = { date: '2026-11-25', kind: 'live', logged_at: '2026-11-26T12:00:00.000Z', package: pkg, run_id: null, supersedes: null };
    const canonical = canonicalJson(leaf);
    expect(canonical.startsWith('{"date":"2026-11-25","kind":"live","logged_at":"2026-11-26T12:00:00.000Z","package":{"available_at":')).toBe(true);
    const { package: record, ...envelope } = leaf;
    expect(parseLeaf(canonical)).toEqual({ ...envelope, entry_type: 'signal-day/v0', record });
    expect(() => parseLeaf(JSON.stringify(leaf))).toThrow(/canonical/);
    expect(() => parseLeaf(canonical.replace('"kind":"live"', '"kind":"original"'))).toThrow(/kind/);
    expect(() => parseLeaf(canonical.replace('"supersedes":null}', '"supersedes":null,"z":1}'))).toThrow(/members/);
    expect(() => parseLeaf('[1]')).toThrow(/object/);
  });
});

describe('appending published days', () => {
  let store: TestStore;
  let key: TrackLogKey;
  // A minute ahead of the clock, so that no head signed before (the log's creation) is later than the heads of these tests.
  const t0 = Date.now() + 60_000;
  /** `hours` before t0, as an available_at: 192 hours or more is past the first open after it (a backfill). */
  const ago = (hours: number): string => new Date(t0 - hours * 3_600_000).toISOString();
  /** Just before t0: a day logged from t0 on is logged before the first open after it (live). */
  const fresh = new Date(t0 - 1).toISOString();
  const day = (date: string, availableAt: string | null, regime: Regime = 'expansion'): PublishedDay => ({
    date,
    record: signalDayRecord(publishedRow(date, availableAt, regime)),
  });
  const append = (days: PublishedDay[], nowMs: number) => store.sql.begin((tx) => appendPublishedDays(tx, days, key, nowMs, null));

  beforeAll(async () => {
    store = await testStore();
    key = await loadTrackLogKey(store.sql, { signalLogSigningKey: null });
  });
  afterAll(async () => {
    await store?.close();
  });

  it('logs each day once, by its own kind, under a head signed by the log key; an unchanged day is not logged again', async () => {
    await expect(trackHead(store.sql)).rejects.toMatchObject({ code: 'not_found' });
    const first = await append([day('2026-11-25', fresh), day('2009-03-31', '2009-04-01T10:30:00.000Z'), day('2026-11-24', null)], t0);
    expect(first.appended).toEqual([
      { leaf_index: 0, date: '2009-03-31', kind: 'backfill' },
      { leaf_index: 1, date: '2026-11-24', kind: 'backfill' },
      { leaf_index: 2, date: '2026-11-25', kind: 'live' },
    ]);
    expect(first.head).toMatchObject({ tree_size: 3, timestamp: t0, key_id: key.keyId });
    expect(verifyTreeHeadSignature(first.head!, key.publicKey)).toEqual({ valid: true });

    const again = await append([day('2026-11-25', fresh)], t0 + 1000);
    expect(again).toEqual({ appended: [], unchanged: 1, head: null });
    expect((await trackHead(store.sql)).tree_size).toBe(3);
  });

  it('logs a changed day as a republication of its previous leaf; the first leaf stays the original', async () => {
    const out = await append([day('2026-11-25', fresh, 'risk_off'), day('2026-11-26', ago(192))], t0 + 2000);
    expect(out.appended).toEqual([
      { leaf_index: 3, date: '2026-11-25', kind: 'republication' },
      { leaf_index: 4, date: '2026-11-26', kind: 'backfill' },
    ]);
    const proof = await dayProof(store.sql, '2026-11-25');
    expect(proof.leaves.map((l) => [l.leaf_index, l.kind])).toEqual([
      [2, 'live'],
      [3, 'republication'],
    ]);
    expect(parseLeaf(proof.leaves[1]!.data)).toMatchObject({ supersedes: 2, record: { regime: { most_likely: 'risk_off' } } });
    expect((await firstLeafKinds(store.sql)).get('2026-11-25')).toBe('live');
  });

  it('serves proofs that an independent RFC 9162 verifier accepts, against heads whose roots it recomputes from every leaf', async () => {
    const all = await store.sql<Array<{ data: Buffer }>>`select data from signal_log_leaves order by leaf_index`;
    const head = await trackHead(store.sql);
    expect(head.root_hash).toBe(rfcRoot(all.map((r) => new Uint8Array(r.data))).toString('hex'));
    const older = await trackHead(store.sql, 3);
    expect(older.root_hash).toBe(rfcRoot(all.slice(0, 3).map((r) => new Uint8Array(r.data))).toString('hex'));
    for (const date of ['2009-03-31', '2026-11-24', '2026-11-25', '2026-11-26']) {
      for (const size of [head.tree_size, older.tree_size]) {
        const proof = await dayProof(store.sql, date, size).catch(() => null);
        if (!proof) continue;
        const root = hexBytes((await trackHead(store.sql, size)).root_hash);
        for (const leaf of proof.leaves) {
          expect(leaf.leaf_hash).toBe(rfcLeafHash(utf8(leaf.data)).toString('hex'));
          expect(rfcVerifyInclusion(leaf.leaf_index, size, rfcLeafHash(utf8(leaf.data)), leaf.audit_path.map(hexBytes), root)).toBe(true);
        }
      }
    }
    const c = await trackConsistency(store.sql, 3);
    expect(c).toMatchObject({ from: 3, to: 5 });
    expect(rfcVerifyConsistency(3, 5, hexBytes(older.root_hash), hexBytes(head.root_hash), c.proof.map(hexBytes))).toBe(true);
    // A tampered leaf or proof fails the same verifier.
    const proof = await dayProof(store.sql, '2026-11-25');
    const leaf = proof.leaves[0]!;
    expect(rfcVerifyInclusion(leaf.leaf_index, 5, rfcLeafHash(utf8(leaf.data)), leaf.audit_path.map(hexBytes), hexBytes(head.root_hash))).toBe(true);
    expect(
      rfcVerifyInclusion(
        leaf.leaf_index,
        5,
        rfcLeafHash(utf8(leaf.data.replace('"live"', '"backfill"'))),
        leaf.audit_path.map(hexBytes),
        hexBytes(head.root_hash),
      ),
    ).toBe(false);
    expect(rfcVerifyConsistency(3, 5, hexBytes(head.root_hash), hexBytes(head.root_hash), c.proof.map(hexBytes))).toBe(false);
  });

  it('refuses sizes no head was signed at, a day without a leaf, and a tree too small for the day, naming the parameter', async () => {
    await expect(trackHead(store.sql, 4)).rejects.toMatchObject({ code: 'validation_failed', errors: [{ field: 'tree_size' }] });
    await expect(dayProof(store.sql, '2026-11-25', 2)).rejects.toMatchObject({ code: 'validation_failed', errors: [{ field: 'tree_size' }] });
    await expect(dayProof(store.sql, '2001-01-02')).rejects.toMatchObject({ code: 'not_found' });
    await expect(trackConsistency(store.sql, 4)).rejects.toMatchObject({ code: 'validation_failed', errors: [{ field: 'from' }] });
    await expect(trackConsistency(store.sql, 0)).rejects.toMatchObject({ code: 'validation_failed', errors: [{ field: 'from' }] });
    await expect(trackConsistency(store.sql, 5, 3)).rejects.toMatchObject({ code: 'validation_failed', errors: [{ field: 'from' }] });
  });

  it('keeps what is logged: no statement changes or deletes a leaf, a node or a head', async () => {
    await expect(store.sql`update signal_log_leaves set kind = 'live' where leaf_index = 0`).rejects.toThrow(/append-only/);
    await expect(store.sql`delete from signal_log_leaves where leaf_index = 4`).rejects.toThrow(/append-only/);
    await expect(store.sql`update signal_log_nodes set hash = hash where level = 0`).rejects.toThrow(/append-only/);
    await expect(store.sql`delete from signal_log_heads`).rejects.toThrow(/append-only/);
    expect((await store.sql`select count(*)::int as n from signal_log_leaves`)[0]!.n).toBe(5);
  });

  it('writes nothing of a publication whose transaction rolls back', async () => {
    await expect(
      store.sql.begin(async (tx) => {
        await appendPublishedDays(tx, [day('2026-11-27', ago(200))], key, t0 + 3000, null);
        throw new Error('the publication failed after logging');
      }),
    ).rejects.toThrow(/failed after logging/);
    expect((await trackHead(store.sql)).tree_size).toBe(5);
    const out = await append([day('2026-11-27', ago(200))], t0 + 4000);
    expect(out.appended).toEqual([{ leaf_index: 5, date: '2026-11-27', kind: 'backfill' }]);
  });

  it('queues each new head for every Pro webhook in the appending transaction, and nothing when nothing is logged', async () => {
    const accounts = { pro: randomUUID(), free: randomUUID() };
    for (const [tier, id] of Object.entries(accounts)) {
      await store.sql`insert into signal_accounts (account_id, email, tier) values (${id}, ${`${id}@example.test`}, ${tier})`;
      await store.sql`insert into signal_webhooks (account_id, url, secret) values (${id}, 'https://hooks.example.test/x', 'whsec_test')`;
    }
    const out = await append([day('2026-12-01', fresh), day('2026-12-02', ago(210))], t0 + 5000);
    const queued = await store.sql<
      Array<{ account_id: string; event: string; payload: any }>
    >`select account_id, event, payload from webhook_deliveries where event = 'log_head'`;
    expect(queued.map((q) => q.account_id)).toEqual([accounts.pro]);
    expect(queued[0]!.payload).toEqual({
      id: expect.any(String),
      type: 'log_head',
      created_at: new Date(t0 + 5000).toISOString(),
      log_head: out.head,
      appended: { live: 1, backfill: 1, republication: 0, first_date: '2026-12-01', last_date: '2026-12-02' },
    });
    expect((await append([day('2026-12-01', fresh)], t0 + 6000)).head).toBeNull();
    await expect(
      store.sql.begin(async (tx) => {
        await appendPublishedDays(tx, [day('2026-12-03', fresh)], key, t0 + 7000, null);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow(/rolled back/);
    expect((await store.sql`select count(*)::int as n from webhook_deliveries where event = 'log_head'`)[0]!.n).toBe(1);
  });

  it('never signs a head older than the last, whatever the clock says', async () => {
    const out = await append([day('2026-11-30', null)], t0 - 86_400_000);
    expect(out.head!.timestamp).toBe(t0 + 5000);
    expect(parseLeaf((await dayProof(store.sql, '2026-11-30')).leaves[0]!.data).logged_at).toBe(new Date(t0 + 5000).toISOString());
  });

  it('keeps a leaf written before entry types in its own form, reads it as signal-day/v0, and logs its day again only when a field of v0 changes', async () => {
    const row = publishedRow('2026-12-10', ago(300));
    const old = legacyLeaf(row, t0 + 8000);
    const before = await store.sql.begin(async (tx) => appendTrackLeaves(tx, await lockTrackLog(tx), [old.leaf], key, t0 + 8000));
    const index = before.appended[0]!.leaf_index;
    const [stored] = await store.sql<Array<{ data: Buffer }>>`select data from signal_log_leaves where leaf_index = ${index}`;
    // Byte for byte what the log wrote before entry types: no entry_type, the day under `package`.
    expect(stored!.data.toString('utf8')).toBe(old.text);
    expect(parseLeaf(old.text)).toEqual(old.leaf);
    // Published again as a signal-day/v1 record with the same fields: nothing to log, no republication.
    expect(await append([{ date: row.date, record: signalDayRecord(row) }], t0 + 9000)).toEqual({ appended: [], unchanged: 1, head: null });
    // A field of v0 changed: a republication of the v0 leaf, written as signal-day/v1.
    const changed = await append([{ date: row.date, record: signalDayRecord({ ...row, level_bn: row.level_bn + 1 }) }], t0 + 9000);
    expect(changed.appended).toEqual([{ leaf_index: index + 1, date: row.date, kind: 'republication' }]);
    const leaves = (await dayProof(store.sql, row.date)).leaves.map((l) => parseLeaf(l.data));
    expect(leaves.map((l) => [l.entry_type, l.supersedes])).toEqual([
      ['signal-day/v0', null],
      ['signal-day/v1', index],
    ]);
  });
});
