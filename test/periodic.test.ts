/**
 * The background jobs' scaffold (src/core/periodic.ts): a pass at once and one per interval, never two at once, a
 * failed pass reported and retried at the next tick, and a stop that waits for the pass under way.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runEvery } from '../src/core/periodic.js';

beforeEach(() => void vi.useFakeTimers());
afterEach(() => void vi.useRealTimers());

/** A pass that stays under way until `finish()` is called. */
function slowPasses() {
  let started = 0;
  let finish = (): void => {};
  const pass = (): Promise<void> => {
    started++;
    return new Promise<void>((resolve) => (finish = resolve));
  };
  return { pass, started: () => started, finish: () => finish() };
}

describe('runEvery', () => {
  it('runs a pass at once, then one per interval', async () => {
    let passes = 0;
    const stop = runEvery(
      100,
      async () => void passes++,
      () => {},
    );
    expect(passes).toBe(1);
    await vi.advanceTimersByTimeAsync(350);
    expect(passes).toBe(4);
    await stop();
    await vi.advanceTimersByTimeAsync(1000);
    expect(passes).toBe(4);
  });

  it('never starts a pass while one is under way: the ticks meanwhile are skipped', async () => {
    const slow = slowPasses();
    const stop = runEvery(100, slow.pass, () => {});
    await vi.advanceTimersByTimeAsync(1000);
    expect(slow.started()).toBe(1);
    slow.finish();
    await vi.advanceTimersByTimeAsync(100);
    expect(slow.started()).toBe(2);
    slow.finish();
    await stop();
  });

  it('reports a failed pass and tries again at the next tick', async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const stop = runEvery(
      100,
      async () => {
        calls++;
        if (calls === 1) throw new Error('store down');
      },
      (err) => errors.push(err),
    );
    await vi.advanceTimersByTimeAsync(100);
    expect(errors).toEqual([new Error('store down')]);
    expect(calls).toBe(2);
    await stop();
  });

  it('stops: the returned promise waits for the pass under way, which sees stopped() and ends its rounds', async () => {
    let rounds = 0;
    let release = (): void => {};
    const stop = runEvery(
      100,
      async (stopped) => {
        while (!stopped()) {
          rounds++;
          await new Promise<void>((resolve) => (release = resolve));
        }
      },
      () => {},
    );
    expect(rounds).toBe(1);
    let stoppedAll = false;
    const stopping = stop().then(() => void (stoppedAll = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(stoppedAll).toBe(false);
    release();
    await stopping;
    expect(stoppedAll).toBe(true);
    expect(rounds).toBe(1);
  });
});
