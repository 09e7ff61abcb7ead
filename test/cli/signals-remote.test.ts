/**
 * The `tradeseal signals …` commands as clients of a remote signal service (`--url`, `--key`): the same
 * answers as from the local store, over real HTTP; the service's refusals keep their code and exit code.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWith } from '../../src/core/config.js';
import { startServer, type RunningServer } from '../../src/http/server.js';
import { issueKey } from '../../src/signals/store/keys.js';
import type { Tier } from '../../src/signals/tiers.js';
import { cliEnv, describeRun, runCli, tempHome, type CliEnv } from '../helpers/cli.js';
import { testStore, type TestStore } from '../helpers/db.js';

const home = tempHome();
let store: TestStore;
let server: RunningServer;
let local: CliEnv;

beforeAll(async () => {
  // The bundled data published as of 2009-03-31 with seed 7, made once for the run (test/setup/published-history.ts).
  store = await testStore({ history: 'published' });
  server = await startServer(configWith({ databaseUrl: store.url, logLevel: 'silent', port: 0 }), { services: ['signals'] });
  local = cliEnv(home, store.url);
}, 600_000);
afterAll(async () => {
  await server?.close();
  await store?.close();
});

async function keyOf(tier: Tier): Promise<string> {
  const id = randomUUID();
  await store.sql`insert into signal_accounts (account_id, email, tier) values (${id}, ${`${id}@example.test`}, ${tier})`;
  return (await issueKey(store.sql, id)).api_key;
}

describe('signals commands against a remote service', () => {
  it('latest, range, forecast and performance answer what the local store answers', async () => {
    const key = await keyOf('pro');
    // The remote service is named by flags for one command and by SIGNALS_URL / SIGNALS_KEY for the others.
    const viaEnv = cliEnv(home, 'postgres://nobody@127.0.0.1:1/unused', { SIGNALS_URL: server.url, SIGNALS_KEY: key });
    for (const args of [
      ['signals', 'latest'],
      ['signals', 'range', '--start', '2009-03-02', '--end', '2009-03-31'],
      ['signals', 'forecast', '--horizon', '3'],
      ['signals', 'performance'],
    ]) {
      const [there, here] = await Promise.all([runCli([...args, '--json'], viaEnv), runCli([...args, '--json'], local)]);
      expect(there.code, describeRun(there)).toBe(0);
      expect(here.code, describeRun(here)).toBe(0);
      expect(there.json(), args.join(' ')).toEqual(here.json());
    }
    const flagged = await runCli(['signals', 'latest', '--url', server.url, '--key', key, '--json'], local);
    expect(flagged.json().date).toBe('2009-03-31');
    // history: the newest --days from the service, narrowed by --start/--end, as the store gives them.
    const [histThere, histHere] = await Promise.all([
      runCli(['signals', 'history', '--days', '40', '--start', '2009-03-02', '--json'], viaEnv),
      runCli(['signals', 'history', '--start', '2009-03-02', '--end', '2009-03-31', '--json'], local),
    ]);
    expect(histThere.code, describeRun(histThere)).toBe(0);
    expect(histThere.json()).toEqual(histHere.json());
    expect(histThere.json()).toHaveLength(22);
    // regime heartbeat through GET /v1/engine/heartbeat: signed by the service's key, ids increasing.
    const sidecar = await keyOf('engine_sidecar');
    const [hb1, hb2] = [
      await runCli(['regime', 'heartbeat', '--url', server.url, '--key', sidecar], local),
      await runCli(['regime', 'heartbeat', '--url', server.url, '--key', sidecar], local),
    ];
    expect(hb1.code, describeRun(hb1)).toBe(0);
    expect(hb1.json()).toMatchObject({
      regime_id: expect.any(Number),
      mta_ref: expect.stringMatching(/^[0-9a-f]{64}$/),
      signature: expect.stringMatching(/^ed25519:/),
    });
    expect(hb2.json().sequence_id).toBeGreaterThan(hb1.json().sequence_id);
    const daysHere = await runCli(['signals', 'history', '--days', '5'], local);
    expect(daysHere.code, describeRun(daysHere)).toBe(2);
    expect(daysHere.stderr).toContain('--days');
    // A named profile, by --profile and by TRADESEAL_PROFILE.
    const profiles = { TRADESEAL_PROFILES_FILE: path.join(home, 'profiles.json') };
    const set = await runCli(['config', 'set', '--profile', 'desk', '--signals-url', server.url, '--key', key], cliEnv(home, undefined, profiles));
    expect(set.code, describeRun(set)).toBe(0);
    const nowhere = 'postgres://nobody@127.0.0.1:1/unused';
    const [byFlag, byEnv] = await Promise.all([
      runCli(['signals', 'latest', '--profile', 'desk', '--json'], cliEnv(home, nowhere, profiles)),
      runCli(['signals', 'latest', '--json'], cliEnv(home, nowhere, { ...profiles, TRADESEAL_PROFILE: 'desk' })),
    ]);
    for (const run of [byFlag, byEnv]) {
      expect(run.code, describeRun(run)).toBe(0);
      expect(run.json()).toEqual(flagged.json());
    }
  }, 300_000);

  it("backtest and export go through the service, which applies the key's tier", async () => {
    const pro = await keyOf('pro');
    const bt = await runCli(['signals', 'backtest', '--start', '2008-09-01', '--end', '2008-12-31', '--url', server.url, '--key', pro, '--json'], local);
    expect(bt.code, describeRun(bt)).toBe(0);
    const here = await runCli(['signals', 'backtest', '--start', '2008-09-01', '--end', '2008-12-31', '--json'], local);
    expect(bt.json().summary).toEqual(here.json().summary);
    const free = await keyOf('free');
    const csv = await runCli(['signals', 'export', '--url', server.url, '--key', free], local);
    expect(csv.code, describeRun(csv)).toBe(0);
    expect(csv.stdout.trim().split('\n')).toHaveLength(31);
  }, 300_000);

  it("the service's refusals keep their code and exit code", async () => {
    const free = await keyOf('free');
    const old = await runCli(['signals', 'range', '--start', '2008-10-01', '--end', '2008-10-31', '--url', server.url, '--key', free, '--json'], local);
    expect(old.code, describeRun(old)).toBe(5);
    expect(old.json().error.code).toBe('history_limit');
    const tier = await runCli(['signals', 'backtest', '--start', '2008-09-01', '--end', '2008-12-31', '--url', server.url, '--key', free, '--json'], local);
    expect(tier.json().error.code).toBe('tier_insufficient');
    const nokey = await runCli(['signals', 'latest', '--url', server.url, '--json'], local);
    expect(nokey.code).toBe(5);
    expect(nokey.json().error).toMatchObject({ code: 'unauthorized', hint: expect.stringContaining('--key') });
    const down = await runCli(['signals', 'latest', '--url', 'http://127.0.0.1:1', '--key', free, '--json'], local);
    expect(down.code).toBe(6);
    expect(down.json().error.code).toBe('service_unavailable');
  }, 300_000);

  it('the operator commands (keys issue, set-tier, revoke, list; outbox) go through /v1/admin with an owner key, answering as the store does', async () => {
    const owner = await keyOf('owner');
    const nowhere = cliEnv(home, 'postgres://nobody@127.0.0.1:1/none');
    const remote = ['--url', server.url, '--key', owner, '--json'];
    const email = `${randomUUID()}@example.test`;
    const issued = await runCli(['signals', 'keys', 'issue', '--email', email, '--tier', 'starter', ...remote], nowhere);
    expect(issued.code, describeRun(issued)).toBe(0);
    expect(issued.json()).toMatchObject({ email, tier: 'starter', account_created: true, api_key: expect.stringMatching(/^rsk_/) });
    const keyId = issued.json().key_id;
    const changed = await runCli(['signals', 'keys', 'set-tier', email, '--tier', 'pro', ...remote], nowhere);
    expect(changed.json(), describeRun(changed)).toMatchObject({ email, tier: 'pro', previous_tier: 'starter' });
    const revoked = await runCli(['signals', 'keys', 'revoke', keyId, ...remote], nowhere);
    expect(revoked.json(), describeRun(revoked)).toMatchObject({ key_id: keyId, revoked_now: true });
    // The listing and the outbox read both ways agree.
    for (const args of [
      ['signals', 'keys', 'list', '--email', email],
      ['signals', 'outbox', '--limit', '5'],
    ]) {
      const [there, here] = await Promise.all([runCli([...args, ...remote], nowhere), runCli([...args, '--json'], local)]);
      expect(there.code, describeRun(there)).toBe(0);
      expect(there.json()).toEqual(here.json());
    }
    const listed = await runCli(['signals', 'keys', 'list', '--email', email, ...remote], nowhere);
    expect(listed.json().keys).toEqual([expect.objectContaining({ key_id: keyId, tier: 'pro', revoked_at: expect.any(String) })]);
    expect(listed.stdout).not.toContain(issued.json().api_key);
    // Refusals: a key that is not the owner's (403, exit 5); an unknown key id (404, exit 3); bad input (422, exit 2).
    const pro = await keyOf('pro');
    const notOwner = await runCli(['signals', 'keys', 'list', '--url', server.url, '--key', pro, '--json'], nowhere);
    expect(notOwner.code, describeRun(notOwner)).toBe(5);
    expect(notOwner.json().error.code).toBe('tier_insufficient');
    const unknown = await runCli(['signals', 'keys', 'revoke', randomUUID(), ...remote], nowhere);
    expect(unknown.code, describeRun(unknown)).toBe(3);
    const bad = await runCli(['signals', 'outbox', '--limit', '0', ...remote], nowhere);
    expect(bad.code, describeRun(bad)).toBe(2);
    // pipeline status: the service's runs through /v1/admin/pipeline-runs, as the store lists them.
    const [runsThere, runsHere] = await Promise.all([
      runCli(['pipeline', 'status', '--limit', '3', ...remote], nowhere),
      runCli(['pipeline', 'status', '--limit', '3', '--json'], local),
    ]);
    expect(runsThere.code, describeRun(runsThere)).toBe(0);
    expect(runsThere.json()).toEqual(runsHere.json());
    expect(runsThere.json().runs[0]).toMatchObject({ status: 'published', last_day: '2009-03-31' });
    const runsByPro = await runCli(['pipeline', 'status', '--url', server.url, '--key', pro, '--json'], nowhere);
    expect(runsByPro.code, describeRun(runsByPro)).toBe(5);
  }, 300_000);
});
