/**
 * What `tradeseal demo` prints at the end (src/cli/demo-view.ts), on an 80-column terminal: every line fits,
 * the case, its answer, the trace and its status are whole, and what gave way is named under the table;
 * through a pipe every column is there, whole.
 */
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { renderDemo } from '../../src/cli/demo-view.js';
import { tableStyle } from '../../src/cli/table-flags.js';
import type { DemoSummary } from '../../src/demo/run.js';

const id = (n: number): string => `${String(n).repeat(8)}-1111-4222-8333-${String(n).repeat(12)}`;
/** The cases as the demo's scenario makes them (src/demo/scenario.ts), with its longest answers and details. */
const SUMMARY: DemoSummary = {
  home: '/home/officer/.tradeseal/demo',
  url: 'http://127.0.0.1:8080',
  pipeline: null,
  released: true,
  stale_regime: { regime: 'tightening', date: '2025-11-26', age_days: 366 },
  broadcast: { regime: 'tightening', risk_score: 0.6, hash: 'ab'.repeat(32) },
  cases: [
    { case: 'filled as authorized', agent: 'alpha', answer: '200', trace_id: id(1), status: 'MATCHED', detail: `final_proof ${'c'.repeat(12)}…` },
    { case: 'idempotent retry', agent: 'alpha', answer: '200', trace_id: id(1), status: 'the same trace', detail: 'the original answer, nothing sealed twice' },
    {
      case: 'replayed heartbeat',
      agent: 'alpha',
      answer: '403 heartbeat_replayed',
      trace_id: null,
      status: 'refused',
      detail: 'its heartbeat was spent by the first order',
    },
    {
      case: 'partial fill',
      agent: 'beta',
      answer: '200',
      trace_id: id(2),
      status: 'DIVERGENT',
      detail: 'executed_quantity 50 differs from the authorized quantity 100',
    },
    {
      case: 'filled on the other side',
      agent: 'gamma',
      answer: '200',
      trace_id: id(3),
      status: 'MISMATCH',
      detail: 'executed_side Short differs from the authorized action Long',
    },
    {
      case: "over the agent's cap",
      agent: 'delta',
      answer: '403 notional_cap_exceeded',
      trace_id: null,
      status: 'refused',
      detail: 'recorded in the audit log (authorize.reject)',
    },
    {
      case: 'let through by shadow mode',
      agent: 'delta',
      answer: '200 shadow_blocked=true',
      trace_id: id(4),
      status: 'SHADOW_HALTED',
      detail: 'the policy would have stopped it',
    },
    { case: 'never filled', agent: 'epsilon', answer: '200', trace_id: id(5), status: 'EXPIRED', detail: 'expired by the sweeper' },
    { case: 'executed, never authorized', agent: 'gamma', answer: 'FIX 35=8', trace_id: id(6), status: 'ORPHAN', detail: 'orphan from the FIX drop copy' },
  ],
};

describe("the demo's summary", () => {
  it("at 80 columns: no line wider, each case's name, answer, trace and status whole, the hidden columns named", () => {
    const out = renderDemo(SUMMARY, tableStyle({}, { width: 80, color: false }));
    for (const line of out.split('\n')) expect(stringWidth(line), line).toBeLessThanOrEqual(80);
    for (const c of SUMMARY.cases) {
      expect(out).toMatch(new RegExp(`^${c.case} +${c.answer.replace(/[()]/g, '\\$&')} +${c.trace_id ? c.trace_id.slice(0, 8) : '-?'} +${c.status}$`, 'm'));
    }
    expect(out).toMatch(/^2 columns hidden \(agent, detail\): --json$/m);
    expect(out).toContain(`  export TRADESEAL_HOME=${SUMMARY.home}; unset DATABASE_URL`);
  });

  it('through a pipe: every column, every value whole', () => {
    const out = renderDemo(SUMMARY, tableStyle({}, { width: null, color: false }));
    expect(out.split('\n')[0]).toMatch(/^case +agent +answer +trace_id +status +detail$/);
    for (const c of SUMMARY.cases) expect(out).toContain(c.detail);
    expect(out).toContain(id(6));
    expect(out).not.toContain('hidden');
  });
});
