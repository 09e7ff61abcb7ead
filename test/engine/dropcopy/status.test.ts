/**
 * The FIX drop-copy session as the officer reads it, over the HTTP app on a real store whose session tables hold
 * rows as the session writes them: `GET /engine/admin/dropcopy` (a clear state with no session, the state row,
 * fills by outcome, refused messages), `GET /engine/admin/dropcopy/rejects` (newest first, `limit` checked),
 * who may read them, and which row a server configured for a session reads.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWith, type Config } from '../../../src/core/config.js';
import { configuredSession, NOT_CONFIGURED, readDropCopyStatus } from '../../../src/engine/dropcopy/status.js';
import { insertConflict, insertFill, insertReject, insertSession, sampleRejects, SESSION_KEY } from '../../helpers/dropcopy-rows.js';
import { engineHarness, type EngineHarness } from '../../helpers/engine.js';

let h: EngineHarness;
let auditor = '';
let client = '';

beforeAll(async () => {
  h = await engineHarness();
  const issued = await h.call('POST', '/engine/admin/tokens', { client_name: 'officer', role: 'auditor' });
  if (issued.statusCode !== 200) throw new Error(`auditor token: ${issued.body}`);
  auditor = issued.json().token;
  client = (await h.registerAgent()).token;
}, 120_000);
afterAll(async () => h?.close());

/** Settings that configure a session, read from FIX_DROPCOPY_* as a server reads them. */
const configured = (senderCompId: string, targetCompId: string): Config =>
  configWith(
    {},
    {
      FIX_DROPCOPY_ROLE: 'initiator',
      FIX_DROPCOPY_HOST: 'dropcopy.xnas.example',
      FIX_DROPCOPY_PORT: '9878',
      FIX_DROPCOPY_SENDER_COMP_ID: senderCompId,
      FIX_DROPCOPY_TARGET_COMP_ID: targetCompId,
    },
  );

describe('GET /engine/admin/dropcopy', () => {
  it('with no session configured and none run: 200, state not_configured, saying so, and nothing counted', async () => {
    const res = await h.call('GET', '/engine/admin/dropcopy', undefined, auditor);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      state: 'not_configured',
      summary: NOT_CONFIGURED,
      configured: null,
      session: null,
      fills: { matched: 0, divergent: 0, orphan: 0, already_known: 0, total: 0 },
      last_fill_at: null,
      conflicts: 0,
      last_conflict_at: null,
      orphans_resolved: 0,
      rejects: 0,
      last_reject_at: null,
    });
    expect(NOT_CONFIGURED).toBe('no FIX drop-copy session is configured (FIX_DROPCOPY_ROLE unset)');
    expect(new Date(body.checked_at).getTime()).toBe(h.clock.now);
  });

  it('reads the state row, the fills by outcome with the last one applied, and the refused messages', async () => {
    const t = Date.parse('2026-11-27T14:03:00.000Z');
    await insertSession(h.store.sql, {
      state: 'logged_on',
      owner: 'engine-1:4121',
      epoch: 3,
      next_sender_seq: 12,
      next_target_seq: 40,
      last_inbound_at: new Date(t + 9000),
      last_outbound_at: new Date(t + 5000),
      last_logon_at: new Date(t),
      updated_at: new Date(t + 9000),
    });
    for (const [i, outcome] of (['matched', 'matched', 'matched', 'orphan', 'already_known', 'divergent'] as const).entries()) {
      await insertFill(h.store.sql, { seq: 20 + i, outcome, appliedAt: new Date(t + 1000 * (i + 1)) });
    }
    // Another session's rows (an earlier configuration) are not this one's.
    await insertFill(h.store.sql, { seq: 3, outcome: 'orphan', appliedAt: new Date(t + 60_000), sessionKey: 'FIX.4.4:OLD->XNAS' });
    for (const r of sampleRejects(new Date(t + 2000))) await insertReject(h.store.sql, r);
    await insertConflict(h.store.sql, { recordedAt: new Date(t + 7000) });
    await insertConflict(h.store.sql, { recordedAt: new Date(t + 8000), sessionKey: 'FIX.4.4:OLD->XNAS' });

    const res = await h.call('GET', '/engine/admin/dropcopy', undefined, auditor);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      state: 'logged_on',
      summary: `${SESSION_KEY} (initiator) logged_on on engine-1:4121; FIX_DROPCOPY_ROLE is unset here`,
      configured: null,
      session: {
        session_key: SESSION_KEY,
        role: 'initiator',
        state: 'logged_on',
        owner: 'engine-1:4121',
        epoch: 3,
        next_sender_seq: 12,
        next_target_seq: 40,
        last_inbound_at: '2026-11-27T14:03:09.000Z',
        last_outbound_at: '2026-11-27T14:03:05.000Z',
        last_logon_at: '2026-11-27T14:03:00.000Z',
        updated_at: '2026-11-27T14:03:09.000Z',
      },
      fills: { matched: 3, divergent: 1, orphan: 1, already_known: 1, total: 6 },
      last_fill_at: '2026-11-27T14:03:06.000Z',
      conflicts: 1,
      last_conflict_at: '2026-11-27T14:03:07.000Z',
      orphans_resolved: 0,
      rejects: 3,
      last_reject_at: '2026-11-27T14:03:04.000Z',
      checked_at: new Date(h.clock.now).toISOString(),
    });
  });

  it("a server configured for a session reads that session's row, or says it has not run yet", async () => {
    const now = new Date();
    const mine = await readDropCopyStatus(h.store.sql, configuredSession(configured('TRADESEAL', 'XNAS-DC')), now);
    expect(mine.configured).toEqual({ session_key: SESSION_KEY, role: 'initiator', host: 'dropcopy.xnas.example', port: 9878 });
    expect(mine.session?.session_key).toBe(SESSION_KEY);
    expect(mine.summary).toBe(`${SESSION_KEY} (initiator) logged_on on engine-1:4121`);
    // The old session's row is the newer one, but not the configured one; a session configured and never run is not another's.
    await insertSession(h.store.sql, { session_key: 'FIX.4.4:OLD->XNAS', state: 'stopped', updated_at: new Date(Date.now() + 60_000) });
    expect((await readDropCopyStatus(h.store.sql, configuredSession(configured('TRADESEAL', 'XNAS-DC')), now)).session?.session_key).toBe(SESSION_KEY);
    const fresh = await readDropCopyStatus(h.store.sql, configuredSession(configured('TRADESEAL', 'XLON-DC')), now);
    expect(fresh.state).toBe('not_started');
    expect(fresh.summary).toBe('FIX.4.4:TRADESEAL->XLON-DC (initiator) is configured, but no server has run it yet');
    expect(fresh.session).toBeNull();
    expect(fresh.fills.total).toBe(0);
    await h.store.sql`delete from dropcopy_sessions where session_key = 'FIX.4.4:OLD->XNAS'`;
  });

  it('answers owner and auditor tokens; a client token is 403, none 401', async () => {
    expect((await h.call('GET', '/engine/admin/dropcopy')).statusCode).toBe(200);
    expect((await h.call('GET', '/engine/admin/dropcopy', undefined, auditor)).statusCode).toBe(200);
    const refused = await h.call('GET', '/engine/admin/dropcopy', undefined, client);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().code).toBe('forbidden');
    expect((await h.call('GET', '/engine/admin/dropcopy', undefined, null)).statusCode).toBe(401);
    expect((await h.call('GET', '/engine/admin/dropcopy/rejects', undefined, client)).statusCode).toBe(403);
  });
});

describe('GET /engine/admin/dropcopy/rejects', () => {
  it('lists the refused messages newest first, each as received and answered', async () => {
    const res = await h.call('GET', '/engine/admin/dropcopy/rejects', undefined, auditor);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.count).toBe(3);
    const samples = sampleRejects(new Date(Date.parse('2026-11-27T14:03:02.000Z'))).reverse();
    expect(body.rejects.map((r: Record<string, unknown>) => ({ ...r, id: undefined }))).toEqual(
      samples.map((s) => ({
        ...s,
        received_at: s.received_at.toISOString(),
        session_key: SESSION_KEY,
        id: undefined,
      })),
    );
    const newest = await h.call('GET', '/engine/admin/dropcopy/rejects?limit=1', undefined, auditor);
    expect(newest.json().rejects.map((r: { answer: string }) => r.answer)).toEqual(['none']);
  });

  it('refuses a bad limit with 422 naming it', async () => {
    for (const limit of ['0', '5001', 'ten']) {
      const res = await h.call('GET', `/engine/admin/dropcopy/rejects?limit=${limit}`, undefined, auditor);
      expect(res.statusCode, limit).toBe(422);
      expect(res.json().errors.map((e: { field: string }) => e.field)).toEqual(['limit']);
    }
    expect((await h.call('GET', '/engine/admin/dropcopy/rejects?before=1', undefined, auditor)).statusCode).toBe(422);
  });
});
