/**
 * The shared state authorize enforces (src/engine/state.ts): "the instance that makes a change sees it at
 * once". A periodic refresh whose read began before this instance published a regime (or switched shadow
 * mode) must not put the older state back when its answer arrives afterwards: for a kill-switch broadcast
 * that would let orders through under the previous regime until the next refresh.
 */
import type { Sql } from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineState } from '../../src/engine/state.js';
import { publishManual } from '../../src/store/regime-broadcasts.js';
import { setShadowMode } from '../../src/engine/store/shadow.js';
import { testStore, type TestStore } from '../helpers/db.js';

let store: TestStore;
beforeAll(async () => {
  store = await testStore();
});
afterAll(async () => store?.close());

/**
 * A handle whose queries run at once (so they read the store as it is now) but whose answers are held back
 * until `release()`; `executed()` resolves when every query issued so far has run.
 */
function heldBack(sql: Sql): { sql: Sql; release: () => void; executed: () => Promise<unknown> } {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const running: Array<Promise<unknown>> = [];
  const hold = (query: PromiseLike<unknown>): Promise<unknown> => {
    const done = Promise.resolve(query);
    running.push(done);
    return gate.then(() => done);
  };
  const proxy = new Proxy(sql, {
    apply: (target, thisArg, args) => hold(Reflect.apply(target, thisArg, args) as PromiseLike<unknown>),
    get: (target, prop, receiver) => {
      if (prop === 'unsafe') return (...args: unknown[]) => hold((target.unsafe as (...a: unknown[]) => PromiseLike<unknown>)(...args));
      return Reflect.get(target, prop, receiver);
    },
  });
  return { sql: proxy as Sql, release, executed: () => Promise.all(running) };
}

describe('engine state', () => {
  it('a refresh that read the store before this instance published a regime does not revert it', async () => {
    const held = heldBack(store.sql);
    const state = new EngineState(held.sql, 1000);
    const first = await publishManual(store.sql, { date: '2025-01-02', regime: 'expansion', risk_score: 0.1, model_version: 'm' });
    state.adoptRegime(first);

    const refresh = state.refresh();
    await held.executed(); // the refresh has read the store: expansion is the newest broadcast
    const killSwitch = await publishManual(store.sql, { date: '2025-01-02', regime: 'risk_off', risk_score: 0.9, model_version: 'm' });
    state.adoptRegime(killSwitch);
    held.release();
    await refresh;

    expect(state.regime?.id).toBe(killSwitch.id);
    expect(state.regime?.regime).toBe('risk_off');
  });

  it('a refresh that read the store before this instance switched shadow mode on does not switch it back', async () => {
    const held = heldBack(store.sql);
    const state = new EngineState(held.sql, 1000);
    const refresh = state.refresh();
    await held.executed();
    const on = await setShadowMode(store.sql, true, 'rollout', 'test');
    state.adoptShadow(on);
    held.release();
    await refresh;
    expect(state.shadow.enabled).toBe(true);
    await setShadowMode(store.sql, false, null, 'test');
  });

  it('a refresh that began after the change still picks up what other instances wrote', async () => {
    const state = new EngineState(store.sql, 1000);
    await state.refresh();
    const before = state.regime?.id ?? 0;
    const other = await publishManual(store.sql, { date: '2025-01-03', regime: 'tightening', risk_score: 0.5, model_version: 'm' });
    expect(state.regime?.id ?? 0).toBe(before);
    await state.refresh();
    expect(state.regime?.id).toBe(other.id);
    await setShadowMode(store.sql, true, 'elsewhere', 'other-instance');
    await state.refresh();
    expect(state.shadow).toMatchObject({ enabled: true, reason: 'elsewhere' });
    await setShadowMode(store.sql, false, null, 'test');
  });
});
