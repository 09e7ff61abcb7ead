/**
 * `tradeseal engine reconcile FILE` against a real engine store: a CSV drop copy records the executions no
 * trace was bound to as ORPHAN traces and reports a bound trace it does not list; the same file again
 * creates nothing (and a pipe gets plain progress lines); a JSON file works alike; a bad file is refused
 * whole, naming the file, the line and the rule, before anything is written.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, describeRun, runCli, tempHome, type CliEnv } from '../helpers/cli.js';
import { engineHarness, type EngineHarness } from '../helpers/engine.js';
import { fillReport, fixMessage } from '../helpers/fix-message.js';

let h: EngineHarness;
let env: CliEnv;
let agentId: string;
let boundId: string;
let missingId: string;
const home = tempHome();
/** The harness clock once the regime is published: executions are placed after it, within their authorizations' validity. */
let T0 = 0;
const at = (minutes: number): string => new Date(T0 + minutes * 60_000).toISOString();
const file = (name: string, text: string): string => {
  const p = path.join(home, name);
  fs.writeFileSync(p, text);
  return p;
};

beforeAll(async () => {
  h = await engineHarness();
  env = cliEnv(home, h.store.url);
  await h.publishRegime('expansion');
  T0 = h.clock.now;
  const agent = await h.registerAgent();
  agentId = agent.agent_id;
  const bind = async (exchangeTxId: string, minutes: number): Promise<string> => {
    // Authorized a second before it executed.
    h.clock.now = Math.max(h.clock.now, T0 + minutes * 60_000 - 1000);
    const traceId = (await h.call('POST', '/engine/authorize', h.order(agentId), agent.token)).json().trace_id as string;
    const res = await h.call(
      'POST',
      '/engine/bind-execution',
      { trace_id: traceId, exchange_tx_id: exchangeTxId, execution_status: 'Filled', execution_time_ms: Date.parse(at(minutes)) },
      agent.token,
    );
    expect(res.statusCode, res.body).toBe(200);
    return traceId;
  };
  boundId = await bind('C-BOUND', 1);
  missingId = await bind('C-UNLISTED', 2);
});
afterAll(async () => h?.close());

describe('engine reconcile FILE', () => {
  it('records the orphans of a CSV drop copy once, reports what it does not list, and shows plain progress in a pipe', async () => {
    const csv = file(
      'drop-2026-02-03.csv',
      [
        'exchange_tx_id,client_order_id,asset,side,quantity,price,agent_id,execution_time',
        `C-BOUND,,AAPL,Long,100,190,${agentId},${at(1)}`,
        `C-NEW,manual-1,TSLA,Short,7,250.5,${agentId},${at(3)}`,
      ].join('\n'),
    );
    const first = await runCli(['engine', 'reconcile', csv, '--json'], env);
    expect(first.code, describeRun(first)).toBe(0);
    const report = first.json();
    expect(report).toMatchObject({
      counts: { matched: 1, orphans_created: 1, already_known: 0, missing: 1 },
      matched: [{ exchange_tx_id: 'C-BOUND', trace_id: boundId }],
      orphans_created: [{ exchange_tx_id: 'C-NEW', agent_id: agentId }],
      missing: [{ exchange_tx_id: 'C-UNLISTED', trace_id: missingId }],
    });
    const orphan = (await h.call('GET', `/engine/trace/${report.orphans_created[0].trace_id}`)).json();
    expect(orphan).toMatchObject({
      integrity: { status: 'ORPHAN', verification_status: 'Orphan' },
      execution: { action: 'Short', asset: 'TSLA', client_order_id: 'manual-1' },
    });
    const [entry] = (await h.call('GET', '/engine/admin/audit-log?action=reconcile&limit=1')).json().entries;
    expect(entry).toMatchObject({
      id: report.audit_entry_id,
      actor: expect.stringMatching(/^cli:/),
      details: { source: 'drop-2026-02-03.csv', orphans_created: 1, missing: 1 },
    });

    const again = await runCli(['engine', 'reconcile', csv], env);
    expect(again.code, describeRun(again)).toBe(0);
    expect(again.stderr).toContain('Reconciling 2 executions');
    expect(again.stdout).toContain('matched 1, divergent 0, orphans created 0, already known orphans 1, bound traces missing from the drop copy 1');
    expect(again.stdout).toContain(missingId);
    expect((await h.call('GET', '/engine/traces?status=ORPHAN')).json().count).toBe(1);
  }, 120_000);

  it('reads a JSON drop copy, and refuses a bad file whole with its lines and rules', async () => {
    const json = file(
      'drop.json',
      JSON.stringify([{ exchange_tx_id: 'J-1', asset: 'AAPL', side: 'Long', quantity: 1, price: 2, agent_id: agentId, execution_time: at(4) }], null, 2),
    );
    const ok = await runCli(['engine', 'reconcile', json, '--to', at(10), '--json'], env);
    expect(ok.code, describeRun(ok)).toBe(0);
    expect(ok.json()).toMatchObject({ window: { from: at(4), to: at(10) }, counts: { orphans_created: 1, missing: 0 } });

    const bad = file(
      'bad.csv',
      [
        'exchange_tx_id,asset,side,quantity,price,agent_id,execution_time',
        `B-1,AAPL,Long,1,2,${agentId},${at(5)}`,
        `B-2,AAPL,Sideways,1,-2,${agentId},${at(5)}`,
      ].join('\n'),
    );
    const refused = await runCli(['engine', 'reconcile', bad], env);
    expect(refused.code, describeRun(refused)).toBe(2);
    expect(refused.stderr).toContain('drop_copy_invalid');
    expect(refused.stderr).toContain('bad.csv:3 side: must be one of "Long", "Short"');
    expect(refused.stderr).toContain('bad.csv:3 price: must be > 0');
    expect((await h.call('GET', '/engine/traces?status=ORPHAN')).json().count).toBe(2);
  }, 120_000);

  it('reconciles a FIX session log: a bound fill matched, an unknown one an ORPHAN, its resent copy read once', async () => {
    const fixTime = (minutes: number): string => at(minutes).replace(/-/g, '').replace('T', '-').replace('Z', '');
    const log = file(
      'session-2026-02-03.log',
      [
        `20260203-10:00:00.001 : ${fixMessage([
          [35, 'A'],
          [49, 'XNAS'],
          [56, 'DESK'],
          [34, 1],
          [52, '20260203-10:00:00.000'],
          [98, 0],
          [108, 30],
        ])}`,
        `20260203-10:01:00.002 : ${fillReport({ seq: 2, execId: 'C-BOUND', account: agentId, px: 190, time: fixTime(1) })}`,
        `20260203-10:06:00.003 : ${fillReport({ seq: 3, execId: 'F-NEW', account: agentId, symbol: 'NVDA', side: '2', qty: 3, px: 120, time: fixTime(6) })}`,
        `20260203-10:07:00.004 : ${fillReport({ seq: 3, execId: 'F-NEW', account: agentId, symbol: 'NVDA', side: '2', qty: 3, px: 120, time: fixTime(6), possDup: true })}`,
      ].join('\n'),
    );
    const run = await runCli(['engine', 'reconcile', log, '--json'], env);
    expect(run.code, describeRun(run)).toBe(0);
    const report = run.json();
    expect(report).toMatchObject({
      executions: 2,
      counts: { matched: 1, orphans_created: 1 },
      matched: [{ exchange_tx_id: 'C-BOUND', trace_id: boundId }],
      orphans_created: [{ exchange_tx_id: 'F-NEW', agent_id: agentId }],
    });
    const orphan = (await h.call('GET', `/engine/trace/${report.orphans_created[0].trace_id}`)).json();
    expect(orphan).toMatchObject({ integrity: { status: 'ORPHAN' }, execution: { action: 'Short', asset: 'NVDA' } });
    expect((await h.call('GET', '/engine/traces?status=ORPHAN')).json().count).toBe(3);
  }, 120_000);
});
