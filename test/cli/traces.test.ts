/**
 * `tradeseal engine traces list|show|verify`, `engine pending`, `engine orphans` and `engine sweep` on traces
 * made through the HTTP app (authorize and bind), read by the CLI from the same store.
 */
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/core/crypto/hash.js';
import { getTrace } from '../../src/engine/store/traces.js';
import { cliEnv, describeRun, runCli, tempHome, type CliEnv } from '../helpers/cli.js';
import { engineHarness, type EngineHarness } from '../helpers/engine.js';

const HOUR = 3_600_000;

let h: EngineHarness;
const home = tempHome();
let env: CliEnv;
let agentId: string;
let realNow: number;
/** trace ids: authorized two hours ago (PENDING), bound Matched, bound on the wrong side (MISMATCH), fresh PENDING. */
const t = { old: '', matched: '', mismatched: '', fresh: '' };
let matchedHash = '';

beforeAll(async () => {
  // The old trace's agent_valid_time is two hours behind the regime; allow that.
  h = await engineHarness({ policy: { agent_valid_time_max_lag_ms: 3 * HOUR } });
  env = cliEnv(home, h.store.url);
  await h.publishRegime('expansion');
  const agent = await h.registerAgent();
  agentId = agent.agent_id;
  const authorize = async (): Promise<{ trace_id: string; reasoning_hash: string }> => {
    const res = await h.call('POST', '/engine/authorize', h.order(agentId), agent.token);
    if (res.statusCode !== 200) throw new Error(`authorize: ${res.body}`);
    return res.json();
  };
  const bind = async (traceId: string, side: string): Promise<void> => {
    const res = await h.call(
      'POST',
      '/engine/bind-execution',
      {
        trace_id: traceId,
        exchange_tx_id: `X-${traceId.slice(0, 8)}`,
        execution_status: 'Filled',
        asset: 'AAPL',
        executed_quantity: 100,
        executed_side: side,
      },
      agent.token,
    );
    if (res.statusCode !== 200) throw new Error(`bind: ${res.body}`);
  };
  realNow = h.clock.now;
  h.clock.now = realNow - 2 * HOUR;
  t.old = (await authorize()).trace_id;
  h.clock.now = realNow;
  const m = await authorize();
  t.matched = m.trace_id;
  matchedHash = m.reasoning_hash;
  await bind(t.matched, 'Long');
  t.mismatched = (await authorize()).trace_id;
  await bind(t.mismatched, 'Short');
  t.fresh = (await authorize()).trace_id;
}, 60_000);
afterAll(async () => h?.close());

describe('engine traces', () => {
  it('list filters by agent, window and status, newest first', async () => {
    const [all, filtered, badWindow] = await Promise.all([
      runCli(['engine', 'traces', 'list', '--json'], env),
      runCli(
        [
          'engine',
          'traces',
          'list',
          '--agent-id',
          agentId,
          '--status',
          'PENDING',
          '--from',
          new Date(realNow - HOUR).toISOString(),
          '--to',
          String(realNow + 60_000),
        ],
        env,
      ),
      runCli(['engine', 'traces', 'list', '--from', '2026-03-02', '--to', '2026-03-01T00:00:00+01:00'], env),
    ]);
    expect(all.code, describeRun(all)).toBe(0);
    const listing = all.json();
    expect(listing).toMatchObject({ count: 4, has_more: false });
    const ids = listing.traces.map((x: { trace_id: string }) => x.trace_id);
    expect(new Set(ids)).toEqual(new Set(Object.values(t)));
    expect(ids[3]).toBe(t.old);
    const keys = listing.traces.map((x: { txn_time: string; trace_id: string }) => [x.txn_time, x.trace_id].join(' '));
    expect(keys).toEqual([...keys].sort().reverse());
    expect(listing.traces.find((x: { trace_id: string }) => x.trace_id === t.mismatched)).toMatchObject({
      status: 'MISMATCH',
      verification_status: 'Mismatch',
      asset: 'AAPL',
    });

    expect(filtered.code, describeRun(filtered)).toBe(0);
    expect(filtered.stdout).toMatch(/^txn_time\s+trace_id\s+agent_id\s+status/m);
    expect(filtered.stdout).toMatch(new RegExp(`${t.fresh}\\s+${agentId}\\s+PENDING\\s+Long\\s+AAPL\\s+19000 USD`));
    expect(filtered.stdout).not.toContain(t.old); // PENDING too, but before --from
    expect(filtered.stdout).not.toContain(t.matched);
    expect(filtered.stdout).toMatch(/^1 shown$/m);

    expect(badWindow.code, describeRun(badWindow)).toBe(2);
    expect(badWindow.stderr).toMatch(/--from/);
  }, 60_000);

  it('show prints a header and the Reasoning_Trace_v1 document; verify checks it (exit 0)', async () => {
    const [show, verify] = await Promise.all([runCli(['engine', 'traces', 'show', t.matched], env), runCli(['engine', 'traces', 'verify', t.matched], env)]);
    expect(show.code, describeRun(show)).toBe(0);
    const [header, body] = [show.stdout.slice(0, show.stdout.indexOf('\n{')), show.stdout.slice(show.stdout.indexOf('\n{') + 1)];
    expect(header).toContain(`trace ${t.matched}`);
    expect(header).toMatch(/MATCHED \(Matched\)/);
    const doc = JSON.parse(body);
    expect(doc).toMatchObject({ trace_id: t.matched, version: 'Reasoning_Trace_v1', integrity: { status: 'MATCHED' } });
    expect(doc.integrity).toMatchObject({
      reasoning_hash: matchedHash,
      verification_status: 'Matched',
      final_proof: sha256Hex(`${matchedHash}||X-${t.matched.slice(0, 8)}`),
    });

    expect(verify.code, describeRun(verify)).toBe(0);
    expect(verify.stdout).toMatch(/^✓ reasoning_hash: /m);
    expect(verify.stdout).toMatch(/^✓ final_proof: /m);
    expect(verify.stdout).not.toContain('✗');
    expect(verify.stdout).toContain(`trace ${t.matched} is valid`);
  }, 60_000);

  it('show, verify and agents status take the first characters of an id; too few, none or several matches are refused', async () => {
    const [show, verify, short, unknown, zz] = await Promise.all([
      runCli(['engine', 'traces', 'show', t.matched.slice(0, 8), '--json'], env),
      runCli(['engine', 'traces', 'verify', t.matched.slice(0, 13)], env),
      runCli(['engine', 'traces', 'show', t.matched.slice(0, 3)], env),
      runCli(['engine', 'traces', 'show', '0000-'], env),
      runCli(['engine', 'traces', 'verify', 'zz'], env),
    ]);
    expect(show.code, describeRun(show)).toBe(0);
    expect(show.json()).toMatchObject({ trace_id: t.matched });
    expect(verify.code, describeRun(verify)).toBe(0);
    expect(verify.stdout).toContain(`trace ${t.matched} is valid`);
    expect(short.code, describeRun(short)).toBe(2); // three characters: not a prefix, judged as an id
    expect(short.stderr).toMatch(/TRACE_ID/);
    // Too short or not hex: the API's refusal, with what the CLI takes as a hint.
    for (const run of [short, zz]) {
      expect(run.code, describeRun(run)).toBe(2);
      expect(run.stderr).toContain('must be a valid uuid');
      expect(run.stderr).toContain('give a trace id (a UUID) or a unique prefix of it of at least 4 hex digits');
    }
    expect(unknown.code, describeRun(unknown)).toBe(2); // a hyphen where a UUID has none
    const none = await runCli(['engine', 'traces', 'show', t.matched.startsWith('0000') ? 'ffff' : '0000'], env);
    expect(none.code, describeRun(none)).toBe(3);
    expect(none.stderr).toMatch(/no trace id starts with (0000|ffff)/);

    // Two traces whose ids share their first eight characters (the ids rewritten in the store for the test).
    const twins = ['abcd1234-0000-4000-8000-000000000001', 'abcd1234-0000-4000-8000-000000000002'];
    for (const [i, id] of twins.entries()) {
      const res = await h.call('POST', '/engine/authorize', { ...h.order(agentId), client_order_id: `twin-${i}` });
      expect(res.statusCode, res.body).toBe(200);
      await h.store.sql`update traces set trace_id = ${id} where trace_id = ${res.json().trace_id}`;
    }
    const [ambiguous, exact] = await Promise.all([
      runCli(['engine', 'traces', 'show', 'abcd1234'], env),
      runCli(['engine', 'traces', 'show', 'abcd1234-0000-4000-8000-00000000000', '--json'], env),
    ]);
    expect(ambiguous.code, describeRun(ambiguous)).toBe(2);
    expect(ambiguous.stderr).toContain(`abcd1234 is the start of 2 trace ids (${twins.join(', ')}): type more of it`);
    expect(exact.code, describeRun(exact)).toBe(2); // still two
    await h.store.sql`delete from traces where trace_id = any(${twins}::uuid[])`;
    await h.store.sql`delete from trace_idempotency where client_order_id like 'twin-%'`;

    const status = await runCli(['engine', 'agents', 'status', agentId.slice(0, 6), '--status', 'Active', '--reason', 'prefix check', '--json'], env);
    expect(status.code, describeRun(status)).toBe(0);
    expect(status.json()).toMatchObject({ agent_id: agentId, status: 'Active' });
  }, 60_000);

  it('pending lists what waits longer than the age, orphans what needs attention', async () => {
    const [pending, recent, orphans] = await Promise.all([
      runCli(['engine', 'pending', '--json'], env),
      runCli(['engine', 'pending', '--age-seconds', '0', '--json'], env),
      runCli(['engine', 'orphans', '--json'], env),
    ]);
    expect(pending.code, describeRun(pending)).toBe(0);
    expect(pending.json()).toMatchObject({ age_seconds: 3600, count: 1, traces: [{ trace_id: t.old, status: 'PENDING' }] });
    expect(new Set(recent.json().traces.map((x: { trace_id: string }) => x.trace_id))).toEqual(new Set([t.old, t.fresh]));
    expect(orphans.code, describeRun(orphans)).toBe(0);
    expect(orphans.json()).toMatchObject({ count: 1, has_more: false, traces: [{ trace_id: t.mismatched, status: 'MISMATCH' }] });
  }, 60_000);

  it('--csv prints every listed trace whole for a spreadsheet; --columns picks columns; an unknown column exits 2', async () => {
    const [csv, picked, unknown] = await Promise.all([
      runCli(['engine', 'traces', 'list', '--agent-id', agentId, '--csv'], env),
      runCli(['engine', 'traces', 'list', '--agent-id', agentId, '--columns', 'status,trace_id'], env),
      runCli(['engine', 'orphans', '--columns', 'status,venue'], env),
    ]);
    expect(csv.code, describeRun(csv)).toBe(0);
    const records = parse(csv.stdout) as string[][];
    expect(records[0]).toEqual(['txn_time', 'trace_id', 'agent_id', 'status', 'action', 'asset', 'notional', 'currency', 'reasoning_hash']);
    expect(new Set(records.slice(1).map((r) => r[1]))).toEqual(new Set(Object.values(t)));
    expect(records.find((r) => r[1] === t.matched)).toEqual([expect.any(String), t.matched, agentId, 'MATCHED', 'Long', 'AAPL', '19000', 'USD', matchedHash]);
    expect(picked.code, describeRun(picked)).toBe(0);
    expect(picked.stdout.split('\n')[0]).toMatch(/^status\s+trace_id$/);
    expect(picked.stdout).toMatch(new RegExp(`^MATCHED +${t.matched}$`, 'm'));
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/usage_error: unknown column venue for --columns/);
    expect(unknown.stderr).toContain('txn_time, trace_id, agent_id, status');
  }, 60_000);

  it('sweep expires what is older than TRACE_EXPIRY_MS', async () => {
    const swept = await runCli(['engine', 'sweep', '--json'], { ...env, TRACE_EXPIRY_MS: String(HOUR) });
    expect(swept.code, describeRun(swept)).toBe(0);
    expect(swept.json()).toMatchObject({ expired: 1, expiry_ms: HOUR });
    expect(await getTrace(h.store.sql, t.old)).toMatchObject({ status: 'EXPIRED', verification_status: 'Expired' });
    expect(await getTrace(h.store.sql, t.fresh)).toMatchObject({ status: 'PENDING' });
  }, 60_000);

  it('verify exits 5 once the sealed text is tampered with', async () => {
    const edited = await h.store
      .sql`update traces set sealed = replace(sealed, '"quantity":100', '"quantity":1000') where trace_id = ${t.matched} returning trace_id`;
    expect(edited.length).toBe(1);
    const [json, text] = await Promise.all([
      runCli(['engine', 'traces', 'verify', t.matched, '--json'], env),
      runCli(['engine', 'traces', 'verify', t.matched], env),
    ]);
    expect(json.code, describeRun(json)).toBe(5);
    const v = json.json();
    expect(v).toMatchObject({ trace_id: t.matched, valid: false, reasoning_hash: { stored: matchedHash, ok: false } });
    expect(v.checks.find((c: { check: string }) => c.check === 'listing_columns')).toMatchObject({ ok: false, detail: expect.stringContaining('quantity') });
    expect(text.code, describeRun(text)).toBe(5);
    expect(text.stdout).toMatch(/^✗ reasoning_hash: recomputed [0-9a-f]{64} ≠ stored/m);
    expect(text.stdout).toMatch(/NOT valid/);
  }, 60_000);
});
