/** `tradeseal regime publish|show` and `tradeseal engine shadow on|status|off` against a real store. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { broadcastHash, currentRegime } from '../../src/store/regime-broadcasts.js';
import { readShadowMode } from '../../src/engine/store/shadow.js';
import { cliEnv, describeRun, runCli, tempHome, type CliEnv } from '../helpers/cli.js';
import { testStore, type TestStore } from '../helpers/db.js';

let store: TestStore;
let env: CliEnv;
const home = tempHome();
beforeAll(async () => {
  store = await testStore();
  env = cliEnv(home, store.url);
});
afterAll(async () => store?.close());

describe('regime', () => {
  it('show exits 3 before any broadcast; publish makes a manual one that show then prints with the same hash', async () => {
    const [none, bad] = await Promise.all([
      runCli(['regime', 'show'], env),
      runCli(['regime', 'publish', '--regime', 'risk_off', '--risk-score', '1.5', '--reason', 'x', '--date', '2026-02-30'], env),
    ]);
    expect(none.code, describeRun(none)).toBe(3);
    expect(none.stderr).toMatch(/regime publish/);
    expect(bad.code, describeRun(bad)).toBe(2);
    expect(bad.stderr).toMatch(/--risk-score/);
    expect(bad.stderr).toMatch(/--date/);

    const published = await runCli(
      ['regime', 'publish', '--regime', 'risk_off', '--risk-score', '0.9', '--reason', 'exchange outage', '--date', '2026-03-06', '--json'],
      env,
    );
    expect(published.code, describeRun(published)).toBe(0);
    const b = published.json();
    expect(b).toMatchObject({
      date: '2026-03-06',
      regime: 'risk_off',
      regime_id: 3,
      risk_score: 0.9,
      source: 'manual',
      reason: 'exchange outage',
      model_version: 'manual',
      probabilities: { expansion: 0, recovery: 0, tightening: 0, risk_off: 1 },
    });
    expect(b.published_by).toMatch(/^cli:\S+/);
    expect(b.hash).toBe(broadcastHash(b));
    expect((await currentRegime(store.sql))?.hash).toBe(b.hash);

    const shown = await runCli(['regime', 'show'], env);
    expect(shown.code, describeRun(shown)).toBe(0);
    expect(shown.stdout).toMatch(new RegExp(`hash\\s+${b.hash}`));
    expect(shown.stdout).toMatch(/regime\s+risk_off \(regime_id 3\)/);
  }, 60_000);
});

describe('engine shadow', () => {
  it('on, status, off', async () => {
    const noReason = await runCli(['engine', 'shadow', 'on'], env);
    expect(noReason.code, describeRun(noReason)).toBe(2);
    expect(noReason.stderr).toMatch(/reason/);
    expect((await readShadowMode(store.sql)).enabled).toBe(false);

    const on = await runCli(['engine', 'shadow', 'on', '--reason', 'policy 1.1 dry-run'], env);
    expect(on.code, describeRun(on)).toBe(0);
    expect(on.stdout).toMatch(/shadow mode is ON/);
    expect(await readShadowMode(store.sql)).toMatchObject({ enabled: true, reason: 'policy 1.1 dry-run', changed_by: expect.stringMatching(/^cli:/) });

    const status = await runCli(['engine', 'shadow', 'status', '--json'], env);
    expect(status.json()).toMatchObject({ enabled: true, reason: 'policy 1.1 dry-run' });

    const off = await runCli(['engine', 'shadow', 'off', '--json'], env);
    expect(off.code, describeRun(off)).toBe(0);
    expect(off.json()).toMatchObject({ enabled: false, reason: null });
    expect((await readShadowMode(store.sql)).enabled).toBe(false);
  }, 60_000);
});
