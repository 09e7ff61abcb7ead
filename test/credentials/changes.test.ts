/**
 * Credential changes (src/credentials/): what a notification payload decodes to (anything but an exact change
 * is "everything", never ignored), and when `held` resolves: at once for a server alone, as soon as every
 * sibling confirmed, and for a sibling that did not confirm, not before 2 × ENGINE_STATE_REFRESH_MS past the
 * commit (fake timers: each step is exact).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { decodeChange, encodeChange, type CredentialChange } from '../../src/credentials/change.js';
import { CredentialChanges, type Siblings } from '../../src/credentials/changes.js';

describe('decodeChange', () => {
  it.each<[string, unknown, CredentialChange]>([
    ['an engine token', { kind: 'engine_token', token_id: 't1' }, { kind: 'engine_token', token_id: 't1' }],
    ['a key', { kind: 'signals_key', key_id: 'k1' }, { kind: 'signals_key', key_id: 'k1' }],
    ['an account', { kind: 'signals_account', account_id: 'a1' }, { kind: 'signals_account', account_id: 'a1' }],
    ['everything', { kind: 'everything' }, { kind: 'everything' }],
    ['an unknown kind', { kind: 'agent', agent_id: 'x' }, { kind: 'everything' }],
    ['a kind without its id', { kind: 'signals_key' }, { kind: 'everything' }],
    ['an id that is not a string', { kind: 'signals_key', key_id: 7 }, { kind: 'everything' }],
    ['not JSON', 'signals_key k1', { kind: 'everything' }],
    ['null', null, { kind: 'everything' }],
  ])('%s', (_, payload, expected) => {
    expect(decodeChange(typeof payload === 'string' ? payload : JSON.stringify(payload))).toEqual(expected);
    if (typeof payload === 'object') expect(decodeChange(payload)).toEqual(expected);
  });

  it('reads back what it encodes, only the ids it names', () => {
    const change: CredentialChange = { kind: 'signals_account', account_id: 'a1' };
    expect(decodeChange(encodeChange(change))).toEqual(change);
    expect(decodeChange(JSON.stringify({ ...change, extra: 'x' }))).toEqual(change);
  });
});

/** Siblings whose confirmation the test gives (or never gives). */
function siblings(): Siblings & { told: CredentialChange[]; confirm(unconfirmed: string[]): void; receiver: ((c: CredentialChange) => void) | null } {
  let settle: ((u: string[]) => void) | null = null;
  const s = {
    told: [] as CredentialChange[],
    receiver: null as ((c: CredentialChange) => void) | null,
    receive(fn: (c: CredentialChange) => void) {
      s.receiver = fn;
    },
    tell(change: CredentialChange, deadline: number) {
      s.told.push(change);
      return new Promise<string[]>((resolve) => {
        settle = resolve;
        setTimeout(() => resolve(['worker 42']), deadline - Date.now());
      });
    },
    confirm(unconfirmed: string[]) {
      settle?.(unconfirmed);
    },
  };
  return s;
}

describe('CredentialChanges.held', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const settled = async (p: Promise<void>): Promise<boolean> => {
    let done = false;
    void p.then(() => (done = true));
    await vi.advanceTimersByTimeAsync(0);
    return done;
  };

  it('a server alone: applied here, and resolved at once', async () => {
    const applied: CredentialChange[] = [];
    const changes = new CredentialChanges({ refreshMs: 250 });
    changes.register((c) => applied.push(c));
    expect(await settled(changes.held({ kind: 'signals_key', key_id: 'k1' }))).toBe(true);
    expect(applied).toEqual([{ kind: 'signals_key', key_id: 'k1' }]);
  });

  it('with siblings: applied here before they are told, resolved as soon as every one confirmed', async () => {
    const s = siblings();
    const order: string[] = [];
    const changes = new CredentialChanges({ refreshMs: 250, siblings: s });
    changes.register(() => order.push(`applied, siblings told ${s.told.length}`));
    const held = changes.held({ kind: 'engine_token', token_id: 't1' });
    expect(await settled(held)).toBe(false);
    expect(order).toEqual(['applied, siblings told 0']);
    expect(s.told).toEqual([{ kind: 'engine_token', token_id: 't1' }]);
    s.confirm([]);
    expect(await settled(held)).toBe(true);
  });

  it('a sibling that does not confirm is waited out: the answer comes 2 × ENGINE_STATE_REFRESH_MS after the commit, not before', async () => {
    const s = siblings();
    const warnings: string[] = [];
    const changes = new CredentialChanges({ refreshMs: 250, siblings: s, warn: (line) => warnings.push(line) });
    const held = changes.held({ kind: 'signals_account', account_id: 'a1' });
    await vi.advanceTimersByTimeAsync(499);
    expect(await settled(held)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await settled(held)).toBe(true);
    expect(warnings).toEqual([expect.stringContaining('worker 42 did not confirm the credential change (signals_account) within 500 ms')]);
  });

  it('a sibling that reports another as unconfirmed early still waits until the bound', async () => {
    const s = siblings();
    const changes = new CredentialChanges({ refreshMs: 100, siblings: s });
    const held = changes.held({ kind: 'signals_key', key_id: 'k1' });
    await vi.advanceTimersByTimeAsync(20);
    s.confirm(['worker 7']);
    expect(await settled(held)).toBe(false);
    await vi.advanceTimersByTimeAsync(179);
    expect(await settled(held)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await settled(held)).toBe(true);
  });

  it('a change told by a sibling is applied to every registered cache', () => {
    const s = siblings();
    const applied: string[] = [];
    const changes = new CredentialChanges({ refreshMs: 250, siblings: s });
    changes.register((c) => applied.push(`tokens ${c.kind}`));
    changes.register((c) => applied.push(`admissions ${c.kind}`));
    s.receiver?.({ kind: 'everything' });
    expect(applied).toEqual(['tokens everything', 'admissions everything']);
  });
});
