/** The drop-copy session's views (src/cli/dropcopy-view.ts): ages in the largest units that say them, and the terminal view's line and its tone. */
import { describe, expect, it } from 'vitest';
import { age, dropCopyLine } from '../../src/cli/dropcopy-view.js';
import type { DropCopyStatus } from '../../src/engine/dropcopy/status.js';

const NOW = new Date('2026-11-27T14:00:00.000Z');
const ago = (s: number): Date => new Date(NOW.getTime() - s * 1000);

describe('age', () => {
  it.each([
    [0, '0 s'],
    [59.9, '59 s'],
    [60, '1 min'],
    [3599, '59 min'],
    [3600, '1 h'],
    [3600 + 5 * 60 + 30, '1 h 5 min'],
    [86_400, '1 d'],
    [86_400 + 4 * 3600 + 59, '1 d 4 h'],
    [-5, '0 s'],
  ])('%s s ago is %s', (s, text) => expect(age(ago(s), NOW)).toBe(text));
});

describe("the terminal view's line", () => {
  const status = (state: string | null, rejects = 0, configured = false, divergent = 0, conflicts = 0): DropCopyStatus => ({
    state: state ?? (configured ? 'not_started' : 'not_configured'),
    summary: '',
    configured: configured ? { session_key: 'FIX.4.4:A->B', role: 'initiator', host: 'h', port: 1 } : null,
    session:
      state === null
        ? null
        : {
            session_key: 'FIX.4.4:A->B',
            role: 'initiator',
            state,
            owner: 'h:1',
            epoch: 1,
            next_sender_seq: 1,
            next_target_seq: 1,
            last_inbound_at: ago(12),
            last_outbound_at: null,
            last_logon_at: null,
            updated_at: NOW,
          },
    fills: { matched: 0, divergent, orphan: 0, already_known: 0, total: divergent },
    last_fill_at: null,
    conflicts,
    last_conflict_at: null,
    orphans_resolved: 0,
    rejects,
    last_reject_at: null,
    checked_at: NOW,
  });
  it.each([
    [status(null), null],
    [status(null, 0, true), { text: 'FIX drop copy FIX.4.4:A->B: configured, not started', tone: 'bad' }],
    [status('logged_on'), { text: 'FIX drop copy logged_on · last message 12 s ago', tone: 'ok' }],
    [status('logged_on', 1), { text: 'FIX drop copy logged_on · last message 12 s ago · 1 refused message', tone: 'warn' }],
    [status('disconnected', 2), { text: 'FIX drop copy disconnected · last message 12 s ago · 2 refused messages', tone: 'bad' }],
    [status('logged_on', 0, false, 1), { text: 'FIX drop copy logged_on · last message 12 s ago · 1 divergent fill', tone: 'warn' }],
    [status('logged_on', 0, false, 0, 2), { text: 'FIX drop copy logged_on · last message 12 s ago · 2 ExecID conflicts', tone: 'warn' }],
  ])('%#', (s, line) => expect(dropCopyLine(s)).toEqual(line));
});
