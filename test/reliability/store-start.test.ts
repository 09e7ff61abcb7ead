/**
 * Guarantee: a server starts whatever its store does at start, the same for `serve --workers 1` and
 * `--workers 2`. With PostgreSQL stopped it listens, logs that it waits, answers 503 `service_unavailable` with
 * `Retry-After` on /readyz, health and every route that needs the store, and serves (migrated, its owner token
 * registered) once PostgreSQL is started; one that waits past STORE_START_WAIT_S exits 6 with a hint. A store
 * that refuses DATABASE_URL (here a wrong password) is a setting to correct: exit 2 `config_invalid` with a
 * hint, never `internal`. A store that stalls while the app gets ready (the heartbeat
 * signing key loads then) does not hold the start beyond its bound.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWith } from '../../src/core/config.js';
import { buildApp } from '../../src/http/app.js';
import { connect } from '../../src/store/driver.js';
import { KEY_AT_START_MS } from '../../src/http/signals/engine.js';
import { cliEnv, describeRun, runCliProcess, tempHome } from '../helpers/cli.js';
import { freeze, privateStore, type PrivateStore } from './support/cluster.js';
import { bearer, engineSettings, publishRegime, type EngineSettings } from './support/engine.js';
import { Client } from './support/http.js';
import { startServerProcess, type ServerProcess } from './support/server.js';
import { removeTempDirs } from './support/temp.js';

const home = tempHome();
let store: PrivateStore;
let settings: EngineSettings;
/** A role that logs in with a password, so that a wrong one is refused (the cluster trusts every other role). */
const ROLE = { name: 'tradeseal_pw', password: 'right-password' };

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  store = await privateStore();
  await store.admin.unsafe(`create role ${ROLE.name} login password '${ROLE.password}'`);
  const hba = path.join(store.cluster.dataDir, 'pg_hba.conf');
  writeFileSync(hba, `host all ${ROLE.name} 127.0.0.1/32 scram-sha-256\n${readFileSync(hba, 'utf8')}`);
  await store.admin`select pg_reload_conf()`;
  settings = await engineSettings(store.url, { env: { STORE_CONNECT_TIMEOUT_MS: '1000' } });
}, 120_000);
afterAll(async () => {
  await store?.close();
  await removeTempDirs();
});

/** `serve` run to its end (a start that fails), with `env` over the suite's settings. */
function serveUntilItExits(workers: number, env: Record<string, string>) {
  return runCliProcess(
    ['serve', '--host', '127.0.0.1', '--port', '0'],
    cliEnv(home, undefined, { ...settings.env, SERVE_WORKERS: String(workers), ...env }),
    60_000,
  );
}

/** The 503 a waiting server answers: `service_unavailable` with `Retry-After`. */
function expectUnavailable(answer: { status: number; headers: Record<string, unknown>; body: string }, what: string): void {
  expect(answer.status, `${what}: ${answer.body}`).toBe(503);
  expect(answer.headers['retry-after'], what).toBe('1');
  expect(JSON.parse(answer.body), what).toMatchObject({ code: 'service_unavailable' });
}

describe('a server whose store is away at start', () => {
  it('PostgreSQL stopped: 1 and 2 workers listen, say they wait, answer 503 with Retry-After, and serve once it is started', async () => {
    await store.cluster.halt('fast');
    let servers: ServerProcess[] = [];
    try {
      servers = await Promise.all([1, 2].map((workers) => startServerProcess({ ...settings.env, SERVE_WORKERS: String(workers) }, `away-${workers}`)));
      for (const [i, server] of servers.entries()) {
        const client = new Client(server.url, 4, 10_000);
        try {
          expect((await client.send({ method: 'GET', path: '/livez' })).status).toBe(200);
          for (const p of ['/readyz', '/engine/health', '/irl/health', '/v1/health'])
            expectUnavailable(await client.send({ method: 'GET', path: p }), `${p} (${i + 1} workers)`);
          expectUnavailable(
            await client.send({ method: 'GET', path: '/engine/admin/tokens', headers: bearer(settings.ownerToken) }),
            `/engine/admin/tokens (${i + 1} workers)`,
          );
          expectUnavailable(
            await client.send({ method: 'GET', path: '/v1/account', headers: { 'x-signals-key': `rsk_${'a'.repeat(43)}` } }),
            `/v1/account (${i + 1} workers)`,
          );
        } finally {
          client.close();
        }
        expect(server.log()).toMatch(/the store is not available \(.*\); the server answers 503 meanwhile and tries again in/);
      }
      await store.cluster.resume();
      for (const [i, server] of servers.entries()) {
        const client = new Client(server.url, 4, 10_000);
        try {
          // The next attempt comes within 5 s of the store's return.
          const deadline = Date.now() + 15_000;
          while ((await client.send({ method: 'GET', path: '/readyz' })).status !== 200) {
            if (Date.now() > deadline) throw new Error(`${i + 1} workers: not ready 15 s after the store was started\n${server.log().slice(-3000)}`);
            await sleep(200);
          }
          // Migrated after the wait, and ENGINE_OWNER_TOKEN registered: the owner can publish a broadcast.
          if (i === 0) await publishRegime(client, settings.ownerToken);
          expect((await client.send({ method: 'GET', path: '/engine/admin/tokens', headers: bearer(settings.ownerToken) })).status).toBe(200);
          expect((await client.send({ method: 'GET', path: '/v1/health' })).status).toBe(200);
        } finally {
          client.close();
        }
      }
      for (const server of servers) {
        await server.stop();
        expect(await server.exited).toBe(0);
      }
    } finally {
      await Promise.all(servers.map((s) => s.kill()));
      await store.cluster.resume().catch(() => {});
    }
  }, 120_000);

  it('past STORE_START_WAIT_S: 1 and 2 workers exit 6 service_unavailable with a hint', async () => {
    await store.cluster.halt('fast');
    try {
      const runs = await Promise.all([1, 2].map((workers) => serveUntilItExits(workers, { STORE_START_WAIT_S: '2' })));
      for (const run of runs) {
        expect(run.code, describeRun(run)).toBe(6);
        expect(run.stderr).toMatch(/service_unavailable: the store did not answer within 2 s of the start \(STORE_START_WAIT_S\)/);
        expect(run.stderr).toMatch(/STORE_START_WAIT_S sets how long a start waits for the store/);
      }
    } finally {
      await store.cluster.resume();
    }
  }, 90_000);

  it('a wrong password: 1 and 2 workers exit 2 config_invalid with a hint, alike', async () => {
    // A database that does not exist, or a role, takes the same path (test/http/store-start.test.ts).
    const url = `postgres://${ROLE.name}:wrong-password@127.0.0.1:${new URL(store.url).port}/tradeseal`;
    const runs = await Promise.all([1, 2].map((workers) => serveUntilItExits(workers, { DATABASE_URL: url })));
    for (const run of runs) {
      expect(run.code, describeRun(run)).toBe(2);
      expect(run.stderr).toMatch(/config_invalid: DATABASE_URL: the PostgreSQL server at 127\.0\.0\.1:\d+ refused the password of user "tradeseal_pw"/);
      expect(run.stderr).toMatch(/correct the password in DATABASE_URL/);
      expect(run.stderr).not.toContain('wrong-password');
    }
    const said = runs.map((r) =>
      r.stderr
        .split('\n')
        .filter((l) => /config_invalid|Try this/.test(l))
        .join('\n'),
    );
    expect(said[1]).toBe(said[0]);
  }, 60_000);

  it("a store that stalls while the app gets ready holds the start no longer than the heartbeat key's bound", async () => {
    // The key loads in the app's onReady hook; the store is frozen before the pool's first connection.
    const sql = connect(store.url, { max: 2, connectTimeoutMs: 60_000 });
    const thaw = await freeze(store.cluster);
    try {
      const app = await buildApp(configWith({ logLevel: 'silent' }), { sql, services: ['signals'], logger: false });
      const started = Date.now();
      const ready = await Promise.race([
        app.ready().then(
          () => 'ready',
          (err: Error) => `failed: ${err.message}`,
        ),
        sleep(KEY_AT_START_MS + 3000).then(() => 'still starting'),
      ]);
      expect(ready).toBe('ready');
      expect(Date.now() - started).toBeLessThan(KEY_AT_START_MS + 1000);
      await thaw();
      await app.close();
    } finally {
      await thaw();
      await sql.end({ timeout: 1 });
    }
  }, 60_000);
});
