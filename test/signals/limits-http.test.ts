/**
 * The rate limit and the IP lock over real HTTP, against real Postgres.
 *
 * - With N requests left on a free key (50 per rolling 24 hours), N + 20 concurrent `GET /v1/account` give
 *   exactly N answers 200 and 20 answers 429 `rate_limited` with `X-RateLimit-Reset` (UTC epoch seconds): on one
 *   server, and spread over two server processes (this one and `tradeseal serve` in a child process) that
 *   share only the database.
 * - A free, starter or pro key used from 127.0.0.1 is refused from 127.0.0.2 (403 `ip_locked`, with
 *   `error: "ip_locked"`) until it has been unused for 15 minutes (set back in the database, not waited for);
 *   an engine_sidecar key is not locked.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWith, type Config } from '../../src/core/config.js';
import { errorBody } from '../../src/core/schemas.js';
import { startServer, type RunningServer } from '../../src/http/server.js';
import { issueAccountKey, type IssuedKey } from '../../src/signals/ops/keys.js';
import { accountBody } from '../../src/http/signals/account-schemas.js';
import type { Tier } from '../../src/signals/tiers.js';
import { cliEnv, REPO_ROOT, tempHome } from '../helpers/cli.js';
import { builtCli, spawnEnv } from '../helpers/built-cli.js';
import { testStore, type TestStore } from '../helpers/db.js';
import { expectError, expectSchema, uniqueEmail } from '../helpers/signals-accounts.js';
import { servedChecker } from '../helpers/documented.js';

interface Answer {
  statusCode: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  json(): any;
}

/** `GET base/v1/account` with `key`, over a new connection from `localAddress`. */
function getAccount(base: string, key: string, localAddress = '127.0.0.1'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}/v1/account`, { headers: { 'x-signals-key': key }, localAddress, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => {
        servedChecker(base)
          .then((checker) => checker.check({ method: 'GET', url: '/v1/account', statusCode: res.statusCode ?? 0, headers: res.headers, body }))
          .then(() => resolve({ statusCode: res.statusCode ?? 0, headers: res.headers, body, json: () => JSON.parse(body) }), reject);
      });
    });
    req.on('error', reject);
    req.end();
  });
}

const home = tempHome();
let store: TestStore;
let server: RunningServer;
let child: ChildProcessWithoutNullStreams | undefined;
let childUrl: string;
let config: Config;

/** A second server process on the same database: `tradeseal serve --only signals --port 0`. */
async function startChild(): Promise<string> {
  const proc = spawn(process.execPath, [builtCli(), 'serve', '--only', 'signals', '--port', '0', '--host', '127.0.0.1'], {
    cwd: REPO_ROOT,
    env: spawnEnv(cliEnv(home, store.url, { LOG_LEVEL: 'silent' })),
  });
  child = proc;
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the second server did not start: ${out}`)), 50_000);
    const feed = (chunk: Buffer): void => {
      out += chunk.toString();
      const m = /serving \/v1 on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    proc.stdout.on('data', feed);
    proc.stderr.on('data', feed);
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the second server exited (${code}): ${out}`));
    });
  });
}

beforeAll(async () => {
  store = await testStore({ max: 10 });
  config = configWith({ databaseUrl: store.url, logLevel: 'silent' });
  [server, childUrl] = await Promise.all([startServer(config, { services: ['signals'], port: 0, host: '127.0.0.1' }), startChild()]);
}, 90_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    if (child.exitCode === null) child.kill('SIGKILL');
  }
  await server?.close();
  await store?.close();
});

const keyOf = (tier: Tier): Promise<IssuedKey> => issueAccountKey(store.sql, { email: uniqueEmail(tier), tier });

/** Checks the answers of a burst: `ok` × 200 (each a valid account object) and `refused` × 429 with the headers of the interface. */
function expectBurst(answers: Answer[], ok: number, refused: number, startedMs: number): void {
  const counts = answers.reduce<Record<number, number>>((acc, a) => ({ ...acc, [a.statusCode]: (acc[a.statusCode] ?? 0) + 1 }), {});
  expect(
    counts,
    answers
      .filter((a) => a.statusCode !== 200 && a.statusCode !== 429)
      .map((a) => a.body)
      .join('\n'),
  ).toEqual({ 200: ok, 429: refused });
  for (const a of answers.filter((x) => x.statusCode === 200)) {
    expectSchema(a.json(), accountBody);
    expect(a.headers['x-ratelimit-limit']).toBe('50');
  }
  const remaining = answers
    .filter((a) => a.statusCode === 200)
    .map((a) => Number(a.headers['x-ratelimit-remaining']))
    .sort((x, y) => x - y);
  expect(remaining).toEqual(Array.from({ length: ok }, (_, i) => i));
  for (const a of answers.filter((x) => x.statusCode === 429)) {
    const body = expectError(a, 429, 'rate_limited');
    expectSchema(body, errorBody, ['code', 'detail']);
    expect(body.detail).toMatch(/made 50 requests in the last 24 hours/);
    expect(a.headers['x-ratelimit-limit']).toBe('50');
    expect(a.headers['x-ratelimit-remaining']).toBe('0');
    const reset = a.headers['x-ratelimit-reset'] as string;
    expect(reset).toMatch(/^\d+$/);
    // UTC epoch seconds: the oldest request of the window (the first one of the test) plus 24 hours.
    expect(Number(reset)).toBeGreaterThanOrEqual(Math.floor(startedMs / 1000) + 86_400 - 5);
    expect(Number(reset)).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 86_400 + 5);
  }
}

describe('the rate limit over HTTP', () => {
  it('one server: 30 requests left, 50 at once give exactly 30 × 200 and 20 × 429', async () => {
    const key = await keyOf('free');
    const started = Date.now();
    for (let i = 0; i < 20; i++) {
      const a = await getAccount(server.url, key.api_key);
      expect(a.statusCode, a.body).toBe(200);
      expect(a.headers['x-ratelimit-remaining']).toBe(String(49 - i));
    }
    const answers = await Promise.all(Array.from({ length: 50 }, () => getAccount(server.url, key.api_key)));
    expectBurst(answers, 30, 20, started);
    // Still refused afterwards.
    expectError(await getAccount(server.url, key.api_key), 429, 'rate_limited');
  }, 60_000);

  it('two server processes on one database: 40 requests left, 60 at once spread over both give exactly 40 × 200 and 20 × 429', async () => {
    const key = await keyOf('free');
    const started = Date.now();
    const servers = [server.url, childUrl];
    for (let i = 0; i < 10; i++) expect((await getAccount(servers[i % 2]!, key.api_key)).statusCode).toBe(200);
    const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => getAccount(servers[i % 2]!, key.api_key)));
    expectBurst(answers, 40, 20, started);
    // Both answered their share, and both now refuse the key.
    expectError(await getAccount(server.url, key.api_key), 429, 'rate_limited');
    expectError(await getAccount(childUrl, key.api_key), 429, 'rate_limited');
  }, 60_000);
});

describe('the IP lock over HTTP (127.0.0.1 and 127.0.0.2)', () => {
  it.each(['free', 'starter', 'pro'] as const)('a %s key is locked to the address that used it until 15 minutes without use', async (tier) => {
    const key = await keyOf(tier);
    expect((await getAccount(server.url, key.api_key, '127.0.0.1')).statusCode).toBe(200);
    const locked = await getAccount(server.url, key.api_key, '127.0.0.2');
    const body = expectError(locked, 403, 'ip_locked');
    expect(body.error).toBe('ip_locked');
    expect(body.detail).toMatch(/another address less than 15 minutes ago/);
    expect((await getAccount(server.url, key.api_key, '127.0.0.1')).statusCode).toBe(200);

    // 15 minutes of inactivity lift it: the new address then holds the lock. Real inactivity also outlasts
    // the server's admission cache (ENGINE_STATE_REFRESH_MS); setting the clock back in the store does not,
    // so the test waits that out too.
    await store.sql`update signal_keys set last_used_at = now() - interval '15 minutes 1 second' where key_id = ${key.key_id}`;
    await new Promise((resolve) => setTimeout(resolve, config.stateRefreshMs + 50));
    const moved = await getAccount(server.url, key.api_key, '127.0.0.2');
    expect(moved.statusCode, moved.body).toBe(200);
    expectError(await getAccount(server.url, key.api_key, '127.0.0.1'), 403, 'ip_locked');
  });

  it('an engine_sidecar key is not locked', async () => {
    const key = await keyOf('engine_sidecar');
    for (const address of ['127.0.0.1', '127.0.0.2', '127.0.0.1', '127.0.0.2']) {
      const a = await getAccount(server.url, key.api_key, address);
      expect(a.statusCode, a.body).toBe(200);
      expect(a.headers['x-ratelimit-limit']).toBe('unlimited');
    }
  });
});
