/**
 * `tradeseal demo`, run as a user would (`--no-view` here, `--json` to read its answer): on its own embedded
 * store it serves both services, drives the simulated agents to every status a compliance officer must see, runs
 * on an operator broadcast because the bundled data are stale, releases it, and leaves the store of DATABASE_URL
 * untouched. Afterwards the officer's commands read the demo's store.
 *
 * Its store starts as a copy of the run's published history (test/helpers/docs-template.ts: `tradeseal pipeline
 * run` on the bundled data), which the demo finds published and keeps: its first run on an empty store, the
 * pipeline included, is the README's demo block, which the documented-outputs check runs from nothing.
 */
import { cpSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli, makeToolbox, removeToolbox, type Toolbox } from '../../scripts/docs/check/workspace.js';
import { cliEnv, describeRun, runCli, tempHome } from '../helpers/cli.js';
import { testStore, type TestStore } from '../helpers/db.js';
import { sharedDocsTemplate } from '../helpers/docs-template.js';
import { isDemoHome } from '../../src/demo/home.js';

const root = path.resolve(import.meta.dirname, '..', '..');
const home = tempHome();
let store: TestStore;
let box: Toolbox | undefined;
let template: string;
beforeAll(async () => {
  store = await testStore();
  buildCli(root);
  box = makeToolbox(root, 'dist');
  template = await sharedDocsTemplate(box);
}, 900_000);
afterAll(async () => {
  if (box) removeToolbox(box);
  await store?.close();
});

describe('tradeseal demo', () => {
  it("shows every case on its own store, on a released operator broadcast, and never touches DATABASE_URL's store", async () => {
    const demoHome = path.join(home, 'demo-store');
    cpSync(template, demoHome, { recursive: true });
    const run = await runCli(['demo', '--home', demoHome, '--no-view', '--json'], cliEnv(home, store.url), 300_000);
    expect(run.code, describeRun(run)).toBe(0);
    const s = run.json();
    expect(s.home).toBe(demoHome);
    // Marked as a demo's store: a run with TRADESEAL_HOME pointed at it reuses it (test/demo/home.test.ts).
    expect(isDemoHome(demoHome)).toBe(true);
    // The history was published already: the demo ran no pipeline of its own.
    expect(s.pipeline).toBeNull();
    expect(s.stale_regime).toMatchObject({ date: expect.stringMatching(/^2025-/) });
    expect(s.broadcast.regime).toBe(s.stale_regime.regime);
    expect(s.released).toBe(true);
    const byCase = Object.fromEntries(s.cases.map((c: { case: string }) => [c.case, c]));
    expect(byCase['filled as authorized']).toMatchObject({ answer: '200', status: 'MATCHED' });
    expect(byCase['idempotent retry']).toMatchObject({ answer: '200', status: 'the same trace', trace_id: byCase['filled as authorized'].trace_id });
    expect(byCase['replayed heartbeat']).toMatchObject({ answer: '403 heartbeat_replayed', trace_id: null });
    expect(byCase['partial fill']).toMatchObject({ status: 'DIVERGENT', detail: expect.stringContaining('executed_quantity') });
    expect(byCase['filled on the other side']).toMatchObject({ status: 'MISMATCH' });
    expect(byCase["over the agent's cap"]).toMatchObject({ answer: '403 notional_cap_exceeded' });
    expect(byCase['let through by shadow mode']).toMatchObject({ answer: '200 shadow_blocked=true', status: 'SHADOW_HALTED' });
    expect(byCase['never filled']).toMatchObject({ status: 'EXPIRED' });
    // The orphan came through the engine's FIX drop-copy session, from the demo's exchange.
    expect(byCase['executed, never authorized']).toMatchObject({ answer: 'FIX 35=8', status: 'ORPHAN', detail: 'orphan from the FIX drop copy' });

    // DATABASE_URL's store got nothing.
    const [row] = await store.sql<Array<{ n: number }>>`select (select count(*) from traces) + (select count(*) from agents) as n`;
    expect(Number(row!.n)).toBe(0);

    // The officer's next commands, on the demo's store (DATABASE_URL unset, TRADESEAL_HOME the demo's).
    const demoEnv = cliEnv(demoHome, undefined, { DATABASE_URL: undefined });
    const orphans = await runCli(['engine', 'orphans', '--json'], demoEnv);
    expect(orphans.code, describeRun(orphans)).toBe(0);
    expect(new Set(orphans.json().traces.map((t: { status: string }) => t.status))).toEqual(
      new Set(['DIVERGENT', 'MISMATCH', 'EXPIRED', 'ORPHAN', 'SHADOW_HALTED']),
    );
    const session = await runCli(['engine', 'dropcopy', 'status', '--json'], demoEnv);
    expect(session.json(), describeRun(session)).toMatchObject({
      session: { session_key: 'FIX.4.4:TRADESEAL->XNAS-DEMO', role: 'acceptor', state: 'stopped' },
      fills: { orphan: 1, total: 1 },
      rejects: 0,
    });
    const verified = await runCli(['engine', 'traces', 'verify', byCase['partial fill'].trace_id, '--json'], demoEnv);
    expect(verified.json().valid, describeRun(verified)).toBe(true);
    const audit = await runCli(['engine', 'audit-log', 'verify', '--json'], demoEnv);
    expect(audit.json(), describeRun(audit)).toMatchObject({ valid: true });
    const regime = await runCli(['regime', 'show', '--json'], demoEnv);
    expect(regime.json(), describeRun(regime)).toMatchObject({ source: 'pipeline' });
  }, 400_000);
});
