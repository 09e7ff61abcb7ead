/**
 * The signal service's track record end to end: the published history logged in its publishing transaction,
 * `/v1/log/…` over real HTTP, and `tradeseal signals log head|key` and `tradeseal signals verify` as a subscriber
 * runs them against the service (`--url`) and the local store. `verify` trusts only the public key and the head
 * the subscriber saved: exit 0 when the day is proven and the log only grew, 5 naming the failed checks (a day
 * changed without a new leaf, a truncated or forked log, another key), 2 for bad input. Without `--date` it proves
 * every logged day in one run; a leaf written before entry types (signal-day/v0) verifies as one written now, and
 * a service that serves more fields than the leaves log (a proxy here adds some) fails no day.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUBLISHED_HISTORY } from '../setup/published-history.js';
import { runPipeline } from '../../src/signals/publish/run.js';
import { publishedHistory, publishedMarket } from '../../src/signals/publish/published.js';
import { evaluate } from '../../pipeline/reports/evaluate.js';
import { configWith } from '../../src/core/config.js';
import { generateKeyPair, publicKeyFromSecret } from '../../src/core/crypto/ed25519.js';
import { canonicalJson } from '../../src/core/crypto/jcs.js';
import { signTreeHead, type SignedTreeHead } from '../../src/core/log/tree-head.js';
import { startServer, type RunningServer } from '../../src/http/server.js';
import { issueKey } from '../../src/signals/store/keys.js';
import { signalOn } from '../../src/signals/store/published.js';
import { appendTrackLeaves, lockTrackLog } from '../../src/signals/store/track-log.js';
import { loadTrackLogKey, type TrackLogKey } from '../../src/signals/track/key.js';
import { parseLeaf } from '../../src/signals/track/leaf.js';
import type { Tier } from '../../src/signals/tiers.js';
import { cliEnv, describeRun, runCli, tempHome, type CliEnv } from '../helpers/cli.js';
import { publishedRun, testStore, type TestStore } from '../helpers/db.js';
import { legacyLeaf } from '../helpers/legacy-leaf.js';

const home = tempHome();
let store: TestStore;
let server: RunningServer;
let local: CliEnv;
let pro: string;
let logKey: TrackLogKey;
let keyHex: string;
const DAY = '2009-03-31';

async function keyOf(tier: Tier): Promise<string> {
  const id = randomUUID();
  await store.sql`insert into signal_accounts (account_id, email, tier) values (${id}, ${`${id}@example.test`}, ${tier})`;
  return (await issueKey(store.sql, id)).api_key;
}

const get = async (url: string, key?: string): Promise<{ status: number; json: any }> => {
  const res = await fetch(`${server.url}${url}`, { headers: key ? { 'x-signals-key': key } : {} });
  return { status: res.status, json: await res.json() };
};

const headFile = (name: string, head?: SignedTreeHead): string => {
  const file = path.join(home, `${name}.json`);
  if (head) writeFileSync(file, JSON.stringify(head));
  return file;
};

const verify = (file: string, extra: string[] = [], date = DAY) =>
  runCli(['signals', 'verify', '--date', date, '--head', file, '--public-key', keyHex, '--url', server.url, '--key', pro, '--json', ...extra], local);

/** `signals verify` without --date: every logged day, from `url` (default the service) with `key` (default a Pro key). */
const verifyAll = (file: string, options: { url?: string; key?: string } = {}) =>
  runCli(['signals', 'verify', '--head', file, '--public-key', keyHex, '--url', options.url ?? server.url, '--key', options.key ?? pro, '--json'], local);

/** The failed checks of a result, as `check` names. */
const failedChecks = (result: { checks: Array<{ check: string; status: string }> }): string[] =>
  result.checks.filter((c) => c.status === 'fail').map((c) => c.check);

/**
 * A service in front of the real one whose signal packages (`/v1/signals/…`) carry fields no record defines,
 * at the top and inside `regime`: what the API serves once it gains a field.
 */
async function moreFieldsProxy(target: string): Promise<{ url: string; close: () => Promise<void> }> {
  const more = (pkg: Record<string, unknown>): Record<string, unknown> => ({
    ...pkg,
    risk_budget: 0.25,
    regime: { ...(pkg.regime as object), label: 'added later' },
  });
  const proxy = http.createServer((req, res) => {
    const key = req.headers['x-signals-key'];
    void fetch(`${target}${req.url}`, { headers: typeof key === 'string' ? { 'x-signals-key': key } : {} }).then(async (answer) => {
      let body = await answer.text();
      if (answer.ok && req.url!.startsWith('/v1/signals/')) {
        const json = JSON.parse(body) as Record<string, unknown> | Array<Record<string, unknown>>;
        body = JSON.stringify(Array.isArray(json) ? json.map(more) : more(json));
      }
      res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' }).end(body);
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, close: () => new Promise((resolve) => proxy.close(() => resolve())) };
}

beforeAll(async () => {
  // The bundled data published as of 2009-03-31 with seed 7, made once for the run (test/setup/published-history.ts).
  store = await testStore({ history: 'published' });
  server = await startServer(configWith({ databaseUrl: store.url, logLevel: 'silent', port: 0 }), { services: ['signals'] });
  local = cliEnv(home, store.url);
  pro = await keyOf('pro');
  logKey = await loadTrackLogKey(store.sql, { signalLogSigningKey: null });
  keyHex = Buffer.from(logKey.publicKey).toString('hex');
}, 600_000);
afterAll(async () => {
  await server?.close();
  await store?.close();
});

describe('the published history in the track log', () => {
  it('has one leaf per published day, appended by the run that published it, each a backfill: computed in 2026 for days of 2009', async () => {
    const run = await publishedRun();
    const [days] = await store.sql<Array<{ n: number }>>`select count(*)::int as n from signal_days`;
    expect(run.track_log).toEqual({ live: 0, backfill: days!.n, republication: 0, unchanged: 0, tree_size: days!.n });
    const kinds = await store.sql<
      Array<{ kind: string; n: number; runs: number }>
    >`select kind, count(*)::int as n, count(distinct run_id)::int as runs from signal_log_leaves group by kind`;
    expect(kinds).toEqual([{ kind: 'backfill', n: days!.n, runs: 1 }]);
    expect((await store.sql`select run_id from signal_log_leaves limit 1`)[0]!.run_id).toBe(run.run_id);
  });

  it("serves heads, the key and consistency without a key, and a day's proof to a key that may read the day, with the package /v1/signals serves", async () => {
    const head = await get('/v1/log/head');
    expect(head.status).toBe(200);
    expect(head.json).toMatchObject({ tree_size: expect.any(Number), key_id: logKey.keyId });
    const key = await get('/v1/log/key');
    expect(key.json).toMatchObject({ key_id: logKey.keyId, hex: keyHex });
    const proof = await get(`/v1/log/proof?date=${DAY}`, pro);
    expect(proof.status, JSON.stringify(proof.json)).toBe(200);
    expect(proof.json).toMatchObject({ date: DAY, tree_size: head.json.tree_size, leaves: [{ kind: 'backfill', leaf_index: head.json.tree_size - 1 }] });
    const served = await get(`/v1/signals/${DAY}`, pro);
    expect(canonicalJson(parseLeaf(proof.json.leaves[0].data).record)).toBe(canonicalJson(served.json));
    expect((await get(`/v1/log/proof?date=${DAY}`)).status).toBe(401);
    const free = await get('/v1/log/proof?date=2008-10-10', await keyOf('free'));
    expect(free).toMatchObject({ status: 403, json: { code: 'history_limit' } });
    expect(await get('/v1/log/proof?date=2009-13-01', pro)).toMatchObject({ status: 422, json: { code: 'validation_failed', errors: [{ field: 'date' }] } });
    expect(await get('/v1/log/proof?date=2009-03-28', pro)).toMatchObject({ status: 404, json: { code: 'not_found' } });
    expect(await get('/v1/log/head?tree_size=0')).toMatchObject({ status: 422, json: { code: 'validation_failed' } });
    expect(await get(`/v1/log/consistency?from=${head.json.tree_size + 1}`)).toMatchObject({ status: 422, json: { errors: [{ field: 'from' }] } });
  });

  it("says what the published performance and chart rest on, and gives the live record's figures: none here, every day a backfill", async () => {
    const all = await get('/v1/performance', pro);
    expect(all.status, JSON.stringify(all.json)).toBe(200);
    expect(all.json.record).toEqual({ basis: 'all', days: all.json.days, live_days: 0, backfill_days: all.json.days, unlogged_days: 0 });
    const live = await get('/v1/performance?record=live', pro);
    expect(live.json).toMatchObject({ days: 0, first_day: null, record: { basis: 'live', days: 0, live_days: 0, backfill_days: all.json.days } });
    expect(await get('/v1/performance?record=best', pro)).toMatchObject({ status: 422, json: { errors: [{ field: 'record' }] } });
    const chart = await get('/v1/public/chart-data');
    expect(chart.json.record).toEqual({ basis: 'all', days: chart.json.days - 1, live_days: 0, backfill_days: chart.json.days - 1, unlogged_days: 0 });
    const liveChart = await get('/v1/public/chart-data?record=live');
    expect(liveChart.json.record).toMatchObject({ basis: 'live', days: 0, live_days: 0 });
    expect(liveChart.json.series.map((r: { date: string }) => r.date)).toEqual(chart.json.series.map((r: { date: string }) => r.date));
    expect(new Set(liveChart.json.series.map((r: { strategy: number; equity500: number }) => `${r.strategy}/${r.equity500}`))).toEqual(new Set(['100/100']));
    expect(await get('/v1/public/chart-data?record=some')).toMatchObject({ status: 422, json: { errors: [{ field: 'record' }] } });
    const evaluated = await runCli(['quant', 'evaluate', '--json'], local);
    expect(evaluated.code, describeRun(evaluated)).toBe(0);
    expect(evaluated.json().record).toMatchObject({ basis: 'all', days: evaluated.json().windows.full.days, live_days: 0 });
    const liveEvaluation = await runCli(['quant', 'evaluate', '--record', 'live'], local);
    expect(liveEvaluation.code).toBe(3);
    expect(liveEvaluation.stderr).toContain('no evaluable day rests on regimes logged live');
    // The live record's days are the only ones judged, every strategy on the same days.
    const [history, market] = await Promise.all([publishedHistory(store.sql, null), publishedMarket(store.sql, null)]);
    const march = new Set(market.map((m) => m.date).filter((d) => d.startsWith('2009-03')));
    const onlyMarch = evaluate(history, market, {}, 5, null, march);
    expect(onlyMarch.windows.full.days).toBe(march.size);
    expect(onlyMarch.years.map((y) => y.name)).toEqual(['2009']);
    const cli = await runCli(['signals', 'performance', '--record', 'live', '--json'], local);
    expect(cli.json()).toEqual(live.json);
    expect((await runCli(['signals', 'performance', '--record', 'live'], local)).stdout).toContain(
      `rests on 0 days: the days resting on regimes logged live in the track log; of the whole history's, 0 rest on regimes logged live, ${all.json.days} on backfilled ones`,
    );
  });
});

describe('tradeseal signals verify', () => {
  let saved: string;
  let before: SignedTreeHead;

  beforeAll(async () => {
    saved = headFile('saved');
    const out = await runCli(['signals', 'log', 'head', '--url', server.url, '--out', saved, '--json'], local);
    expect(out.code, describeRun(out)).toBe(0);
    before = JSON.parse(readFileSync(saved, 'utf8'));
    // The next month published after the head was saved: the log grows.
    const run = await runPipeline(store.sql, { ...PUBLISHED_HISTORY, asOf: '2009-04-30' });
    expect(run.track_log).toMatchObject({ backfill: run.days, republication: 0 });
  }, 600_000);

  it('proves a day against the saved head and the newest, and that the log only grew; --update-head then keeps the newest', async () => {
    const keyRun = await runCli(['signals', 'log', 'key', '--json'], local);
    expect(keyRun.json()).toMatchObject({ key_id: logKey.keyId, hex: keyHex });
    const ok = await verify(saved);
    expect(ok.code, describeRun(ok)).toBe(0);
    const result = ok.json();
    expect(result).toMatchObject({
      valid: true,
      date: DAY,
      saved_tree_size: before.tree_size,
      leaves: [{ kind: 'backfill', original: true, in_saved_head: true }],
    });
    expect(result.tree_size).toBeGreaterThan(before.tree_size);
    expect(result.checks.map((c: { check: string; status: string }) => `${c.check}:${c.status}`)).toEqual([
      'saved_head:pass',
      'head:pass',
      'growth:pass',
      'leaves:pass',
      'kinds:pass',
      'logged_at:pass',
      'served:pass',
    ]);
    const newDay = await verify(saved, [], '2009-04-30');
    expect(newDay.json()).toMatchObject({ valid: true, leaves: [{ in_saved_head: false }] });
    const here = await runCli(['signals', 'verify', '--date', DAY, '--head', saved, '--public-key', keyHex, '--json'], local);
    expect(here.json()).toEqual(result);

    const copy = headFile('advanced', before);
    const advanced = await verify(copy, ['--update-head']);
    expect(advanced.code, describeRun(advanced)).toBe(0);
    expect(JSON.parse(readFileSync(copy, 'utf8'))).toMatchObject({ tree_size: result.tree_size, root_hash: result.root_hash });
    // The saved head is evidence: `log head --out` does not replace it.
    const replace = await runCli(['signals', 'log', 'head', '--url', server.url, '--out', saved], local);
    expect(replace.code).toBe(2);
    expect(replace.stderr).toContain('exists');
    expect(JSON.parse(readFileSync(saved, 'utf8'))).toEqual(before);
  });

  it("answers what the newest publication rests on: the service's copy of the record follows a new run and a grown log", async () => {
    // The first describe's requests made the service keep the record of the history before this month was published.
    const [perf, chart] = [await get('/v1/performance', pro), await get('/v1/public/chart-data')];
    expect(perf.json.last_day).toBe('2009-04-30');
    expect(perf.json.record).toEqual({ basis: 'all', days: perf.json.days, live_days: 0, backfill_days: perf.json.days, unlogged_days: 0 });
    expect(chart.json.record).toMatchObject({ basis: 'all', days: chart.json.days - 1, backfill_days: chart.json.days - 1 });
  });

  it('fails a day changed without a new leaf, naming served', async () => {
    const [row] = await store.sql<Array<{ level_bn: number }>>`select level_bn from signal_days where date = ${DAY}`;
    await store.sql`update signal_days set level_bn = ${row!.level_bn + 1} where date = ${DAY}`;
    try {
      const out = await verify(saved);
      expect(out.code, describeRun(out)).toBe(5);
      expect(
        out
          .json()
          .checks.filter((c: { status: string }) => c.status === 'fail')
          .map((c: { check: string }) => c.check),
      ).toEqual(['served']);
    } finally {
      await store.sql`update signal_days set level_bn = ${row!.level_bn} where date = ${DAY}`;
    }
  });

  it('fails a day removed after it was logged, naming served', async () => {
    const [row] = await store.sql`select * from signal_days where date = ${DAY}`;
    await store.sql`delete from signal_days where date = ${DAY}`;
    try {
      const out = await verify(saved);
      expect(out.code, describeRun(out)).toBe(5);
      expect(out.json().checks.find((c: { check: string }) => c.check === 'served')).toMatchObject({
        status: 'fail',
        detail: expect.stringContaining('removed'),
      });
    } finally {
      await store.sql`insert into signal_days ${store.sql(row as Record<string, unknown>)}`;
    }
  });

  it('fails a log smaller than a head saved from it, or one whose tree of the saved size has another root, naming growth', async () => {
    const newest: SignedTreeHead = (await get('/v1/log/head')).json;
    const sign = (size: number, root: string, timestamp = newest.timestamp): SignedTreeHead =>
      signTreeHead({ tree_size: size, root_hash: root, timestamp }, logKey.sign, logKey.keyId);
    const truncated = await verify(headFile('truncated', sign(newest.tree_size + 3, 'ab'.repeat(32))));
    expect(truncated.code, describeRun(truncated)).toBe(5);
    expect(truncated.json().checks.find((c: { check: string }) => c.check === 'growth')).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('fewer'),
    });
    const forked = await verify(headFile('forked', sign(before.tree_size, 'cd'.repeat(32), before.timestamp)));
    expect(forked.code, describeRun(forked)).toBe(5);
    expect(
      forked
        .json()
        .checks.filter((c: { status: string }) => c.status === 'fail')
        .map((c: { check: string }) => c.check),
    ).toEqual(['growth']);
    const unsigned = await verify(headFile('unsigned', { ...before, root_hash: 'cd'.repeat(32) }));
    expect(
      unsigned
        .json()
        .checks.filter((c: { status: string }) => c.status === 'fail')
        .map((c: { check: string }) => c.check),
    ).toEqual(['saved_head', 'growth']);
  });

  it('logs a day published before the log existed as a backfill, never live, once it is confirmed; verify accepts the under-claim', async () => {
    const [row] = await store.sql`select * from signal_days where date = '2009-04-30'`;
    const lateDay = { ...row, date: '2009-05-01', available_at: new Date(Date.now() - 3_600_000) };
    await store.sql`insert into signal_days ${store.sql(lateDay as Record<string, unknown>)}`;
    const unconfirmed = await runCli(['signals', 'log', 'backfill'], local);
    expect(unconfirmed.code, describeRun(unconfirmed)).toBe(2);
    expect(unconfirmed.stderr).toContain('--yes');
    const logged = await runCli(['signals', 'log', 'backfill', '--yes', '--json'], local);
    expect(logged.code, describeRun(logged)).toBe(0);
    expect(logged.json().appended).toEqual([{ leaf_index: expect.any(Number), date: '2009-05-01', kind: 'backfill' }]);
    const proven = await verify(saved, [], '2009-05-01');
    expect(proven.code, describeRun(proven)).toBe(0);
    expect(proven.json().leaves).toEqual([expect.objectContaining({ kind: 'backfill', original: true, in_saved_head: false })]);
    const again = await runCli(['signals', 'log', 'backfill', '--yes'], local);
    expect(again.stdout).toContain('nothing to log');
  });

  it('fails every head under another key, and refuses bad input with exit 2 naming the flag or the file', async () => {
    const other = Buffer.from(publicKeyFromSecret(generateKeyPair().secretKey)).toString('hex');
    const wrong = await runCli(
      ['signals', 'verify', '--date', DAY, '--head', saved, '--public-key', other, '--url', server.url, '--key', pro, '--json'],
      local,
    );
    expect(wrong.code).toBe(5);
    expect(
      wrong
        .json()
        .checks.filter((c: { status: string }) => c.status === 'fail')
        .map((c: { check: string }) => c.check),
    ).toEqual(['saved_head', 'head']);
    const badDate = await verify(saved, [], '2009-02-30');
    expect(badDate.code).toBe(2);
    expect(badDate.stdout + badDate.stderr).toContain('--date');
    const notHead = headFile('not-a-head');
    writeFileSync(notHead, '{"tree_size": -1}');
    const bad = await verify(notHead);
    expect(bad.code).toBe(2);
    expect(bad.stdout + bad.stderr).toContain(notHead);
    const missing = await verify(path.join(home, 'missing.json'));
    expect(missing.code).toBe(2);
    expect(missing.stdout + missing.stderr).toContain('missing.json');
  });

  it('proves a day whose leaf was written before entry types, kept in its own form and read as signal-day/v0', async () => {
    const date = '2009-05-04';
    const [row] = await store.sql`select * from signal_days where date = '2009-04-30'`;
    await store.sql`insert into signal_days ${store.sql({ ...row, date } as Record<string, unknown>)}`;
    const published = (await signalOn(store.sql, date))!;
    const text = await store.sql.begin(async (tx) => {
      const state = await lockTrackLog(tx);
      const at = Math.max(Date.now(), state.last_timestamp_ms);
      const old = legacyLeaf(published, at);
      await appendTrackLeaves(tx, state, [old.leaf], logKey, at);
      return old.text;
    });
    const [stored] = await store.sql<Array<{ data: Buffer }>>`select data from signal_log_leaves where date = ${date}`;
    expect(stored!.data.toString('utf8')).toBe(text);
    const proven = await verify(saved, [], date);
    expect(proven.code, describeRun(proven)).toBe(0);
    expect(proven.json().checks.find((c: { check: string }) => c.check === 'leaves').detail).toContain('signal-day/v0');
    expect(parseLeaf((await get(`/v1/log/proof?date=${DAY}`, pro)).json.leaves[0].data).entry_type).toBe('signal-day/v1');
    const [{ persistence_days: days }] = await store.sql<[{ persistence_days: number }]>`select persistence_days from signal_days where date = ${date}`;
    await store.sql`update signal_days set persistence_days = ${days + 1} where date = ${date}`;
    try {
      const changed = await verify(saved, [], date);
      expect(changed.code, describeRun(changed)).toBe(5);
      expect(changed.json().checks.filter((c: { status: string }) => c.status === 'fail')).toEqual([
        expect.objectContaining({ check: 'served', detail: expect.stringContaining('regime.persistence_days changed') }),
      ]);
    } finally {
      await store.sql`update signal_days set persistence_days = ${days} where date = ${date}`;
    }
  });

  it("proves every logged day in one run without --date, from the service and from the local store: the log's checks once, each day's, a summary", async () => {
    const [{ n }] = await store.sql<[{ n: number }]>`select count(distinct date)::int as n from signal_log_leaves`;
    const remote = await verifyAll(saved);
    expect(remote.code, describeRun(remote)).toBe(0);
    const result = remote.json();
    expect(result).toMatchObject({ valid: true, saved_tree_size: before.tree_size, summary: { days: n, proven: n, failed: [], beyond_history: 0 } });
    expect(result.checks.map((c: { check: string; status: string }) => `${c.check}:${c.status}`)).toEqual(['saved_head:pass', 'head:pass', 'growth:pass']);
    const dayChecks = new Set(result.days.flatMap((d: { checks: Array<{ check: string; status: string }> }) => d.checks.map((c) => `${c.check}:${c.status}`)));
    expect(dayChecks).toEqual(new Set(['leaves:pass', 'kinds:pass', 'logged_at:pass', 'served:pass']));
    // The days logged before the head was saved, the month published since, and the day logged in the old form.
    const dates = result.days.map((d: { date: string }) => d.date);
    expect(dates).toEqual([...dates].sort());
    expect(dates).toEqual(expect.arrayContaining([DAY, '2009-04-30', '2009-05-01', '2009-05-04']));
    expect(result.days.find((d: { date: string }) => d.date === '2009-04-30').leaves).toEqual([expect.objectContaining({ in_saved_head: false })]);
    const here = await runCli(['signals', 'verify', '--head', saved, '--public-key', keyHex, '--json'], local);
    expect(here.json()).toEqual(result);
    // A Free key reads 30 days back: those are proven, the older ones counted, not failed.
    const free = await verifyAll(saved, { key: await keyOf('free') });
    expect(free.code, describeRun(free)).toBe(0);
    const { summary } = free.json();
    expect(summary.days).toBeGreaterThan(0);
    expect(summary).toEqual({ days: summary.days, proven: summary.days, failed: [], beyond_history: n - summary.days });
    expect(free.json().days.map((d: { date: string }) => d.date)).toEqual(dates.slice(n - summary.days));
  });

  it('proves every logged day, and a day with --date, when GET /v1/signals/{date} serves fields their records do not define', async () => {
    const proxy = await moreFieldsProxy(server.url);
    try {
      const res = await fetch(`${proxy.url}/v1/signals/${DAY}`, { headers: { 'x-signals-key': pro } });
      expect(await res.json()).toMatchObject({ date: DAY, risk_budget: 0.25, regime: { label: 'added later', most_likely: expect.any(String) } });
      const all = await verifyAll(saved, { url: proxy.url });
      expect(all.code, describeRun(all)).toBe(0);
      const [{ n }] = await store.sql<[{ n: number }]>`select count(distinct date)::int as n from signal_log_leaves`;
      expect(all.json().summary).toEqual({ days: n, proven: n, failed: [], beyond_history: 0 });
      for (const date of [DAY, '2009-05-04']) {
        const one = await runCli(
          ['signals', 'verify', '--date', date, '--head', saved, '--public-key', keyHex, '--url', proxy.url, '--key', pro, '--json'],
          local,
        );
        expect(one.code, describeRun(one)).toBe(0);
        expect(failedChecks(one.json())).toEqual([]);
      }
    } finally {
      await proxy.close();
    }
  });

  it("fails a run over every day when a field a day's record defines changed without a new leaf, naming the day and the field; the others pass", async () => {
    const [row] = await store.sql<Array<{ level_bn: number }>>`select level_bn from signal_days where date = ${DAY}`;
    await store.sql`update signal_days set level_bn = ${row!.level_bn + 1} where date = ${DAY}`;
    try {
      const out = await verifyAll(saved);
      expect(out.code, describeRun(out)).toBe(5);
      const result = out.json();
      expect(result.summary).toMatchObject({ proven: result.summary.days - 1, failed: [DAY] });
      expect(failedChecks(result)).toEqual([]);
      const day = result.days.find((d: { date: string }) => d.date === DAY);
      expect(day.checks.filter((c: { status: string }) => c.status === 'fail')).toEqual([
        expect.objectContaining({ check: 'served', detail: expect.stringContaining('net_liquidity.level_bn changed') }),
      ]);
      // On a terminal: the log's checks, a line a day, the verdict.
      const text = await runCli(['signals', 'verify', '--head', saved, '--public-key', keyHex], local);
      expect(text.code).toBe(5);
      const lines = text.stdout.trimEnd().split('\n');
      expect(lines.filter((line) => /^✓ \d{4}-\d{2}-\d{2} {2}leaf \d+, backfill, logged /.test(line))).toHaveLength(result.summary.days - 1);
      expect(lines.filter((line) => line.startsWith(`✗ ${DAY}  served: `))).toHaveLength(1);
      expect(lines.at(-1)).toBe(`the track log is NOT proven: 1 of ${result.summary.days} days failed (${DAY})`);
    } finally {
      await store.sql`update signal_days set level_bn = ${row!.level_bn} where date = ${DAY}`;
    }
  });
});
