/**
 * What monitoring and an orchestrator read: `GET /metrics` (Prometheus text format) counting requests by
 * route pattern and status and authorize outcomes by code, with the store's figures; `/livez` and
 * `/readyz`; and JSON log lines on standard error, each request's lines carrying its request id.
 */
import { spawnSync } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sql } from 'postgres';
import { configWith } from '../../src/core/config.js';
import { buildApp } from '../../src/http/app.js';
import { ServerMetrics } from '../../src/http/metrics.js';
import { engineHarness, type EngineHarness } from '../helpers/engine.js';

let h: EngineHarness;
beforeAll(async () => {
  h = await engineHarness();
  await h.publishRegime('expansion');
});
afterAll(async () => h?.close());

/** The value of one sample line of the exposition, or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const inner = line.slice(name.length).match(/^\{([^}]*)\}/)?.[1] ?? '';
    const have = inner === '' ? [] : inner.split(',');
    if (want.every((w) => have.includes(w))) return Number(line.split(' ').pop());
  }
  return undefined;
}

describe('GET /metrics', () => {
  it('counts requests by route pattern and status, and authorize outcomes by code', async () => {
    const { agent_id, token } = await h.registerAgent({ max_notional: 50_000 });
    expect((await h.call('POST', '/engine/authorize', h.order(agent_id), token)).statusCode).toBe(200);
    const big = await h.call('POST', '/engine/authorize', h.order(agent_id, { quantity: 1000, notional: 190_000 }), token);
    expect(big.json().code).toBe('notional_cap_exceeded');
    await h.call('GET', `/engine/trace/${crypto.randomUUID()}`);
    await h.call('GET', '/engine/regime', undefined, null);

    const res = await h.app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = res.body;
    expect(sample(text, 'tradeseal_authorize_total', { outcome: 'authorized' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'tradeseal_authorize_total', { outcome: 'notional_cap_exceeded' })).toBe(1);
    // Route patterns, never raw ids.
    expect(sample(text, 'tradeseal_http_requests_total', { method: 'GET', route: '/engine/trace/:trace_id', status: '404' })).toBe(1);
    expect(sample(text, 'tradeseal_http_requests_total', { method: 'GET', route: '/engine/regime', status: '401' })).toBe(1);
    expect(text).not.toMatch(/route="\/engine\/trace\/[0-9a-f]{8}-/);
    expect(sample(text, 'tradeseal_http_request_duration_seconds_count', { method: 'POST', route: '/engine/authorize', status: '200' })).toBeGreaterThanOrEqual(
      1,
    );
    expect(sample(text, 'tradeseal_store_up')).toBe(1);
    expect(sample(text, 'tradeseal_traces_open')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'tradeseal_webhook_queue_depth')).toBe(0);
    expect(text).toMatch(/^process_cpu_user_seconds_total /m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds /m);
    // No token, no key, no trace content.
    expect(text).not.toContain(token);
    expect(text).not.toContain(h.ownerToken);
  });

  it('counts sweeps by result with the time of the last one', async () => {
    const metrics = new ServerMetrics(h.store.sql);
    metrics.sweep({ expired: 3 });
    metrics.sweep(null);
    const text = await metrics.registry.metrics();
    expect(sample(text, 'tradeseal_sweeper_runs_total', { result: 'ok' })).toBe(1);
    expect(sample(text, 'tradeseal_sweeper_runs_total', { result: 'failed' })).toBe(1);
    expect(sample(text, 'tradeseal_traces_expired_total')).toBe(3);
    expect(Math.abs((sample(text, 'tradeseal_sweeper_last_run_timestamp_seconds') ?? 0) - Date.now() / 1000)).toBeLessThan(60);
  });
});

describe('/livez and /readyz', () => {
  let dead: Sql;
  afterAll(async () => dead?.end({ timeout: 0 }));

  it('both answer 200 while the store answers', async () => {
    expect((await h.app.inject({ method: 'GET', url: '/livez' })).json()).toEqual({ status: 'ok' });
    expect((await h.app.inject({ method: 'GET', url: '/readyz' })).json()).toEqual({ status: 'ok' });
  });

  it('without a store: /readyz is 503 service_unavailable with Retry-After, /livez stays 200, /metrics says store_up 0', async () => {
    dead = postgres('postgres://nobody@127.0.0.1:1/none', { connect_timeout: 1, max: 1, onnotice: () => {} });
    const app = await buildApp(configWith({ logLevel: 'silent' }), { sql: dead, logger: false, services: ['signals'] });
    try {
      const ready = await app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toMatchObject({ status: 'unavailable', code: 'service_unavailable' });
      expect(ready.headers['retry-after']).toBe('1');
      expect((await app.inject({ method: 'GET', url: '/livez' })).statusCode).toBe(200);
      expect(sample((await app.inject({ method: 'GET', url: '/metrics' })).body, 'tradeseal_store_up')).toBe(0);
    } finally {
      await app.close();
    }
  });
});

describe('logs', () => {
  it("are JSON lines on the log stream (standard error by default), each request's with its request id, without tokens", async () => {
    const lines: string[] = [];
    const stream = new PassThrough();
    stream.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
    const app = await buildApp(configWith({ logLevel: 'debug' }), { sql: h.store.sql, services: ['engine'], logStream: stream });
    try {
      const res = await app.inject({ method: 'GET', url: '/engine/regime', headers: { 'x-request-id': 'req-obs-1', authorization: `Bearer ${h.ownerToken}` } });
      expect(res.headers['x-request-id']).toBe('req-obs-1');
      await new Promise((r) => setImmediate(r));
      const mine = lines.map((l) => JSON.parse(l) as { reqId?: string; msg?: string }).filter((l) => l.reqId === 'req-obs-1');
      expect(mine.map((l) => l.msg)).toEqual(expect.arrayContaining(['incoming request', 'request completed']));
      expect(lines.join('\n')).not.toContain(h.ownerToken);
    } finally {
      await app.close();
    }
  });

  it("go to standard error unless told otherwise: standard output stays the commands' own", () => {
    const script = `
      const { buildApp } = await import('./src/http/app.ts');
      const { configWith } = await import('./src/core/config.ts');
      const postgres = (await import('postgres')).default;
      const sql = postgres('postgres://nobody@127.0.0.1:1/none', { max: 1 });
      const app = await buildApp(configWith({ logLevel: 'info' }), { sql, services: ['signals'] });
      app.log.info('a line for the log');
      await app.close();
      await sql.end({ timeout: 0 });`;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/"msg":"a line for the log"/);
  });
});
