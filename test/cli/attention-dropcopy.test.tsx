/**
 * The FIX drop-copy session in the compliance officer's terminal view (`engine orphans` on a terminal), driven
 * with ink-testing-library over a real store: the session's line (its state, when the peer last spoke, the
 * messages it refused) appears and changes as the state row does, on a refresh; an ORPHAN the session
 * records while the view is open appears on the next refresh; and the view on a remote engine shows the line for
 * an auditor token and leaves it out for a client token, which may not read it.
 */
import { randomUUID } from 'node:crypto';
import stringWidth from 'string-width';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineSource, storeSource } from '../../src/cli/attention/source.js';
import type { RunningServer } from '../../src/http/server.js';
import { frameWhen, KEY, openView } from '../helpers/attention-view.js';
import type { TestStore } from '../helpers/db.js';
import { insertFill, insertReject, insertSession, sampleRejects, SESSION_KEY } from '../helpers/dropcopy-rows.js';
import { startOfficerEngine, type OfficerEngine } from '../helpers/officer-engine.js';

let engine: OfficerEngine;
let store: TestStore;
let server: RunningServer;
let auditor = '';
let client = '';
let agentId = '';
let call: OfficerEngine['call'];

beforeAll(async () => {
  engine = await startOfficerEngine('dropcopy-view');
  ({ store, server, auditor, client, agentId, call } = engine);
}, 120_000);
afterAll(async () => {
  await engine?.close();
});

/** The view's third line: where the session's state is shown. */
const sessionLine = (frame: string): string => frame.split('\n')[2] ?? '';

describe('the drop-copy session in the terminal view', () => {
  it("shows no line while no session is configured or ran; then the state row's state, the last message's age and the refused messages, on refresh", async () => {
    const { view, press, frame } = await openView(storeSource(store.sql, null));
    try {
      expect(sessionLine(frame()).trim()).toBe('');
      const now = Date.now();
      await insertSession(store.sql, { state: 'logged_on', last_inbound_at: new Date(now - 7000), last_logon_at: new Date(now - 3_600_000) });
      const on = await press('r');
      expect(sessionLine(on)).toMatch(/^FIX drop copy logged_on · last message \d+ s ago$/);
      for (const r of sampleRejects(new Date(now - 60_000))) await insertReject(store.sql, r);
      await insertSession(store.sql, { state: 'disconnected', last_inbound_at: new Date(now - 7000) });
      const off = await press('r');
      expect(sessionLine(off)).toMatch(/^FIX drop copy disconnected · last message \d+ s ago · 3 refused messages$/);
      for (const line of off.split('\n')) expect(stringWidth(line)).toBeLessThanOrEqual(80);
      // A filter being typed takes the line while it lasts; Esc gives it back.
      expect(sessionLine(await press('/'))).toContain('filter: █');
      expect(sessionLine(await press(KEY.escape))).toMatch(/^FIX drop copy disconnected/);
    } finally {
      view.unmount();
    }
  }, 60_000);

  it('an ORPHAN recorded while the view is open (as the session records a fill no trace was bound to) appears on the next refresh', async () => {
    const { view, press, frame } = await openView(storeSource(store.sql, null));
    try {
      expect(await press(KEY.right, KEY.right, KEY.right)).toContain('nothing in ORPHAN');
      const execution = {
        exchange_tx_id: `XNAS-${randomUUID()}`,
        asset: 'AAPL',
        side: 'Long',
        quantity: 100,
        price: 190,
        agent_id: agentId,
        execution_time: new Date().toISOString(),
      };
      const reconciled = await call('POST', '/engine/admin/reconcile', { executions: [execution] });
      const traceId: string = reconciled.orphans_created[0].trace_id;
      await insertFill(store.sql, { seq: 41, outcome: 'orphan', appliedAt: new Date(), execId: execution.exchange_tx_id, traceId });
      expect(frame()).not.toContain(traceId.slice(0, 8));
      const refreshed = await press('r');
      expect(refreshed).toContain(traceId.slice(0, 8));
      expect(refreshed).toMatch(/ORPHAN/);
    } finally {
      view.unmount();
    }
  }, 60_000);

  it("and on the view's own refresh, with no key pressed", async () => {
    const { view, press, frame } = await openView(storeSource(store.sql, null), 24, 300);
    try {
      await press(KEY.right, KEY.right, KEY.right);
      const before = frame();
      const execution = {
        exchange_tx_id: `XNAS-${randomUUID()}`,
        asset: 'MSFT',
        side: 'Short',
        quantity: 10,
        price: 410,
        agent_id: agentId,
        execution_time: new Date().toISOString(),
      };
      const traceId: string = (await call('POST', '/engine/admin/reconcile', { executions: [execution] })).orphans_created[0].trace_id;
      expect(before).not.toContain(traceId.slice(0, 8));
      expect(await frameWhen(frame, (f) => f.includes(traceId.slice(0, 8)))).toContain(traceId.slice(0, 8));
    } finally {
      view.unmount();
    }
  }, 60_000);

  it('on a remote engine: the line for an auditor token, none for a client token (which may read traces, not the session)', async () => {
    const audited = await openView(engineSource({ url: server.url, token: auditor }, null));
    const clientView = await openView(engineSource({ url: server.url, token: client }, null));
    try {
      expect(sessionLine(audited.frame())).toMatch(/^FIX drop copy disconnected · last message \d+ s ago · 3 refused messages$/);
      expect(sessionLine(clientView.frame()).trim()).toBe('');
      expect(clientView.frame()).not.toContain('error');
    } finally {
      audited.view.unmount();
      clientView.view.unmount();
    }
  }, 60_000);

  it('a session configured here and never run is shown as not started', async () => {
    await store.sql`delete from dropcopy_sessions`;
    const { view, frame } = await openView(
      storeSource(store.sql, null, { dropCopy: { session_key: SESSION_KEY, role: 'acceptor', host: '0.0.0.0', port: 9878 } }),
    );
    try {
      expect(sessionLine(frame())).toBe(`FIX drop copy ${SESSION_KEY}: configured, not started`);
    } finally {
      view.unmount();
    }
  }, 60_000);
});
