/**
 * `tradeseal engine dropcopy status|rejects` on a real store whose session tables hold rows as the FIX session
 * writes them, locally and against a running server (`--url`, over real HTTP): the same answers both ways, the
 * state with each instant's age, a clear line when no session is configured, the refused messages as a table
 * and CSV, and the engine's refusals (a client token, a bad limit, an engine that is not there) with their
 * codes and exit codes.
 */
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/core/errors.js';
import type { RunningServer } from '../../src/http/server.js';
import { cliEnv, describeRun, runCli, tempHome, type CliEnv } from '../helpers/cli.js';
import type { TestStore } from '../helpers/db.js';
import { insertFill, insertReject, insertSession, sampleRejects, SESSION_KEY } from '../helpers/dropcopy-rows.js';
import { startOfficerEngine, type OfficerEngine } from '../helpers/officer-engine.js';

const home = tempHome();
let engine: OfficerEngine;
let store: TestStore;
let server: RunningServer;
let local: CliEnv;
/** No store reachable: every answer must come over HTTP. */
let nowhere: CliEnv;
let owner = '';
let clientToken = '';

beforeAll(async () => {
  engine = await startOfficerEngine('dropcopy-cli');
  ({ store, server, owner, client: clientToken } = engine);
  local = cliEnv(home, store.url);
  nowhere = cliEnv(home, 'postgres://nobody@127.0.0.1:1/none');
}, 120_000);
afterAll(async () => {
  await engine?.close();
});

const remote = (token = owner): string[] => ['--url', server.url, '--token', token];

describe('tradeseal engine dropcopy status', () => {
  it('with no session configured and none run, says so and exits 0, locally and remotely', async () => {
    for (const [args, env] of [
      [[], local],
      [remote(), nowhere],
    ] as const) {
      const run = await runCli(['engine', 'dropcopy', 'status', ...args], env);
      expect(run.code, describeRun(run)).toBe(0);
      expect(run.stdout.trim()).toBe('no FIX drop-copy session is configured (FIX_DROPCOPY_ROLE unset)');
      const json = await runCli(['engine', 'dropcopy', 'status', ...args, '--json'], env);
      expect(json.json()).toMatchObject({ state: 'not_configured', session: null, rejects: 0 });
    }
  }, 60_000);

  it('shows the session: key, role, state, owner, sequence numbers, last messages with their age, fills by outcome, rejects; the same locally and remotely', async () => {
    const now = Date.now();
    await insertSession(store.sql, {
      state: 'logged_on',
      owner: 'engine-1:4121',
      next_sender_seq: 12,
      next_target_seq: 40,
      last_inbound_at: new Date(now - 4000),
      last_outbound_at: new Date(now - 25_000),
      last_logon_at: new Date(now - 2 * 3_600_000 - 5 * 60_000 - 30_000),
    });
    for (const [i, outcome] of (['matched', 'matched', 'orphan'] as const).entries())
      await insertFill(store.sql, { seq: 30 + i, outcome, appliedAt: new Date(now - 10_000 + i * 1000) });
    // The newest refused message is the third, two seconds after the first: three minutes ago.
    for (const r of sampleRejects(new Date(now - 3 * 60_000 - 2000))) await insertReject(store.sql, r);

    const here = await runCli(['engine', 'dropcopy', 'status'], local);
    expect(here.code, describeRun(here)).toBe(0);
    const lines = here.stdout.split('\n');
    expect(lines).toContain(`session_key       ${SESSION_KEY}`);
    expect(lines).toContain('state             logged_on');
    expect(lines).toContain('owner             engine-1:4121');
    expect(lines).toContain('next_sender_seq   12');
    expect(lines).toContain('next_target_seq   40');
    expect(here.stdout).toMatch(/^last_inbound_at   \d{4}-\d\d-\d\dT\S+Z \(\d+ s ago\)$/m);
    expect(here.stdout).toMatch(/^last_outbound_at  \S+ \([2-5]\d s ago\)$/m);
    expect(here.stdout).toMatch(/^last_logon_at     \S+ \(2 h 5 min ago\)$/m);
    expect(lines).toContain('fills             3: 2 matched, 0 divergent, 1 orphan, 0 already_known');
    expect(lines).toContain('conflicts         0');
    expect(lines).toContain('rejects           3 (tradeseal engine dropcopy rejects lists them)');
    expect(here.stdout).toMatch(/^last_reject_at    \S+ \(3 min ago\)$/m);
    expect(here.stdout).toContain('FIX_DROPCOPY_ROLE is unset here: this is the session a server last ran.');

    const [there, hereJson] = await Promise.all([
      runCli(['engine', 'dropcopy', 'status', ...remote(), '--json'], nowhere),
      runCli(['engine', 'dropcopy', 'status', '--json'], local),
    ]);
    expect(there.code, describeRun(there)).toBe(0);
    const strip = (j: Record<string, unknown>) => ({ ...j, checked_at: undefined });
    expect(strip(there.json())).toEqual(strip(hereJson.json()));
    expect(there.json()).toMatchObject({ state: 'logged_on', fills: { matched: 2, orphan: 1, already_known: 0, total: 3 }, rejects: 3 });
    const text = await runCli(['engine', 'dropcopy', 'status', ...remote()], nowhere);
    expect(text.stdout.replace(/\(\d+ s ago\)/g, '')).toBe(here.stdout.replace(/\(\d+ s ago\)/g, ''));
  }, 60_000);

  it('with FIX_DROPCOPY_* set, shows the configured session: its row, or that no server has run it yet', async () => {
    const configured = (target: string): CliEnv => ({
      ...local,
      FIX_DROPCOPY_ROLE: 'initiator',
      FIX_DROPCOPY_HOST: 'dropcopy.example',
      FIX_DROPCOPY_PORT: '9878',
      FIX_DROPCOPY_SENDER_COMP_ID: 'TRADESEAL',
      FIX_DROPCOPY_TARGET_COMP_ID: target,
    });
    const mine = await runCli(['engine', 'dropcopy', 'status'], configured('XNAS-DC'));
    expect(mine.code, describeRun(mine)).toBe(0);
    expect(mine.stdout).toContain(`session_key       ${SESSION_KEY}`);
    expect(mine.stdout).not.toContain('FIX_DROPCOPY_ROLE is unset here');
    const fresh = await runCli(['engine', 'dropcopy', 'status'], configured('XLON-DC'));
    expect(fresh.code, describeRun(fresh)).toBe(0);
    expect(fresh.stdout.trimEnd().split('\n')).toEqual([
      'FIX.4.4:TRADESEAL->XLON-DC (initiator) is configured, but no server has run it yet',
      '',
      'session_key  FIX.4.4:TRADESEAL->XLON-DC',
      'role         initiator',
      'peer         dropcopy.example:9878',
    ]);
  }, 60_000);
});

describe('tradeseal engine dropcopy rejects', () => {
  it('lists the refused messages newest first, locally and remotely alike; --csv keeps every value whole', async () => {
    const [here, there] = await Promise.all([
      runCli(['engine', 'dropcopy', 'rejects', '--json'], local),
      runCli(['engine', 'dropcopy', 'rejects', ...remote(), '--json'], nowhere),
    ]);
    expect(here.code, describeRun(here)).toBe(0);
    expect(there.json()).toEqual(here.json());
    expect(here.json().rejects.map((r: { answer: string }) => r.answer)).toEqual(['none', 'business_reject', 'reject']);
    const table = await runCli(['engine', 'dropcopy', 'rejects'], local);
    expect(table.stdout).toMatch(/^received_at +seq +msg_type +answer +reason +reason_code +ref_tag +raw$/m);
    expect(table.stdout).toMatch(/ +17 +8 +reject +Required tag missing: LastPx \(31\) +1 +31 +8=FIX\.4\.4\|9=141\|35=8\|34=17\|/);
    const csv = await runCli(['engine', 'dropcopy', 'rejects', '--csv', '--limit', '2'], local);
    const rows = parse(csv.stdout, { columns: true }) as Array<Record<string, string>>;
    expect(rows.map((r) => r.answer)).toEqual(['none', 'business_reject']);
    expect(rows[1]!.raw).toBe(sampleRejects(new Date())[1]!.raw);
    expect(rows[0]!.seq).toBe('');
  }, 60_000);

  it('says so when there are none', async () => {
    await store.sql`delete from dropcopy_rejects`;
    const run = await runCli(['engine', 'dropcopy', 'rejects'], local);
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.stdout.trim()).toBe('no refused messages');
    for (const r of sampleRejects(new Date(Date.now() - 3 * 60_000))) await insertReject(store.sql, r);
  }, 60_000);
});

describe('refusals', () => {
  it("a bad --limit is refused before asking, in the API's words and naming the flag (exit 2)", async () => {
    for (const args of [[], remote()]) {
      const run = await runCli(['engine', 'dropcopy', 'rejects', '--limit', '0', ...args, '--json'], nowhere);
      expect(run.code, describeRun(run)).toBe(EXIT.usage);
      expect(run.json().error).toMatchObject({ code: 'validation_failed' });
      expect(run.json().error.errors.map((e: { field: string }) => e.field)).toEqual(['--limit']);
    }
  }, 60_000);

  it("a client token is forbidden (the engine's code and exit), an engine that is not there is service_unavailable", async () => {
    for (const cmd of ['status', 'rejects']) {
      const refused = await runCli(['engine', 'dropcopy', cmd, ...remote(clientToken), '--json'], nowhere);
      expect(refused.code, describeRun(refused)).toBe(EXIT.refused);
      expect(refused.json().error.code).toBe('forbidden');
      const gone = await runCli(['engine', 'dropcopy', cmd, '--url', 'http://127.0.0.1:1', '--token', owner, '--json'], nowhere);
      expect(gone.code, describeRun(gone)).toBe(EXIT.unavailable);
      expect(gone.json().error.code).toBe('service_unavailable');
    }
  }, 60_000);
});
