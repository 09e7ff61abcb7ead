/** The HTTP skeleton: error bodies, status mapping, request ids, health and the OpenAPI document. */
import type { FastifyInstance } from 'fastify';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWith } from '../../src/core/config.js';
import { buildApp } from '../../src/http/app.js';
import { testStore } from '../helpers/db.js';

let store: Awaited<ReturnType<typeof testStore>>;
let app: FastifyInstance;

beforeAll(async () => {
  store = await testStore();
  app = await buildApp(configWith({ logLevel: 'silent' }), { sql: store.sql, logger: false });
  // A route of the test's own, to drive validation and fault paths through the real error handler.
  app.post(
    '/engine/_probe',
    {
      schema: {
        body: {
          type: 'object',
          required: ['agent_id', 'quantity', 'side'],
          additionalProperties: false,
          properties: {
            agent_id: { type: 'string', format: 'uuid' },
            quantity: { type: 'number', exclusiveMinimum: 0 },
            side: { type: 'string', enum: ['Long', 'Short'] },
            nested: { type: 'object', additionalProperties: false, properties: { x: { type: 'integer' } } },
          },
        },
      },
    },
    async (req) => ({ echoed: req.body }),
  );
  app.get('/engine/_boom', async () => {
    throw new Error('connection to 10.0.0.7 failed: password "hunter2" rejected');
  });
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  await store?.close();
});

describe('health', () => {
  it('answers 200 with db_ok for both services; the engine is degraded, saying why, while no regime is published', async () => {
    const v1 = await app.inject({ url: '/v1/health' });
    expect(v1.statusCode).toBe(200);
    expect(v1.json()).toEqual({ status: 'ok', db_ok: true, cert_expiry_status: null });
    const engine = await app.inject({ url: '/engine/health' });
    expect(engine.statusCode).toBe(200);
    expect(engine.json()).toEqual({
      status: 'degraded',
      db_ok: true,
      cert_expiry_status: null,
      regime: null,
      warnings: [expect.stringMatching(/^no regime is published: authorize refuses every order \(regime_stale\)/)],
    });
  });

  it('answers 503 with db_ok false when the store is unreachable', async () => {
    const dead = postgres('postgres://nobody@127.0.0.1:1/none', { connect_timeout: 1, max: 1, onnotice: () => {} });
    const down = await buildApp(configWith({ logLevel: 'silent' }), { sql: dead, logger: false });
    try {
      const res = await down.inject({ url: '/engine/health' });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({ status: 'unavailable', db_ok: false, code: 'service_unavailable' });
    } finally {
      await down.close();
      await dead.end({ timeout: 0 });
    }
  });

  it('serves only the engine when asked', async () => {
    const only = await buildApp(configWith({ logLevel: 'silent' }), { sql: store.sql, logger: false, services: ['engine'] });
    try {
      expect((await only.inject({ url: '/engine/health' })).statusCode).toBe(200);
      expect((await only.inject({ url: '/v1/health' })).statusCode).toBe(404);
    } finally {
      await only.close();
    }
  });
});

describe('error bodies', () => {
  const post = (payload: string, headers: Record<string, string> = {}) =>
    app.inject({ method: 'POST', url: '/engine/_probe', payload, headers: { 'content-type': 'application/json', ...headers } });

  it('answers malformed JSON with 422 invalid_json', async () => {
    const res = await post('{"agent_id": ');
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ code: 'invalid_json' });
    expect(typeof res.json().detail).toBe('string');
  });

  it('answers an empty body declared as JSON as a missing body: 422 validation_failed naming the body', async () => {
    const res = await post('');
    expect(res.statusCode).toBe(422);
    expect(res.json().code).toBe('validation_failed');
    expect(res.json().errors).toEqual([expect.objectContaining({ field: 'body' })]);
  });

  it('refuses prototype-poisoning keys as invalid JSON, not a 500', async () => {
    const res = await post('{"__proto__": {"x": 1}}');
    expect(res.statusCode).toBe(422);
    expect(res.json().code).toBe('invalid_json');
  });

  it('answers a 2 MiB body with 413', async () => {
    const big = JSON.stringify({ agent_id: 'x', pad: 'a'.repeat(2 * 1024 * 1024) });
    const res = await post(big);
    expect(res.statusCode).toBe(413);
    expect(res.json().code).toBe('payload_too_large');
  });

  it('lists every invalid field in a 422, unknown fields included', async () => {
    const res = await post(JSON.stringify({ agent_id: 'not-a-uuid', quantity: -1, extra: true, nested: { x: 1.5, y: 2 } }));
    expect(res.statusCode).toBe(422);
    const body = res.json();
    expect(body.code).toBe('validation_failed');
    const fields = body.errors.map((e: { field: string }) => e.field).sort();
    expect(fields).toEqual(['agent_id', 'extra', 'nested.x', 'nested.y', 'quantity', 'side']);
    expect(body.errors.find((e: { field: string }) => e.field === 'extra').message).toBe('is not a known field');
  });

  it('does not coerce strings into numbers in bodies', async () => {
    const res = await post(JSON.stringify({ agent_id: '0b1e6a36-7d0e-4c53-9b46-1f1a3f6b2c11', quantity: '100', side: 'Long' }));
    expect(res.statusCode).toBe(422);
    expect(res.json().errors).toEqual([{ field: 'quantity', message: 'must be number' }]);
  });

  it('accepts a valid body', async () => {
    const body = { agent_id: '0b1e6a36-7d0e-4c53-9b46-1f1a3f6b2c11', quantity: 100, side: 'Long' };
    const res = await post(JSON.stringify(body));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ echoed: body });
  });

  it('answers unsupported media types with 415 and the error body', async () => {
    const res = await app.inject({ method: 'POST', url: '/engine/_probe', payload: 'a=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(res.statusCode).toBe(415);
    expect(res.json().code).toBe('unsupported_media_type');
  });

  it('answers unknown routes with 404 and the same body', async () => {
    const res = await app.inject({ url: '/engine/nope' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ code: 'not_found', detail: 'no route GET /engine/nope' });
  });

  it('never shows internals in a 500, and names the request id the fault is logged under', async () => {
    const res = await app.inject({ url: '/engine/_boom', headers: { 'x-request-id': 'req-42' } });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toMatchObject({ code: 'internal', request_id: 'req-42' });
    expect(res.body).not.toMatch(/hunter2|10\.0\.0\.7|stack/);
    expect(res.headers['x-request-id']).toBe('req-42');
  });

  it('answers a path with a malformed percent-encoding with 400 bad_request, in the error body, with the request id', async () => {
    const res = await app.inject({ url: '/engine/trace/%zz', headers: { 'x-request-id': 'req-bad-url' } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ code: 'bad_request', detail: 'the URL is not valid: it has a malformed percent-encoding' });
    expect(res.headers['x-request-id']).toBe('req-bad-url');
  });

  it("answers a path parameter longer than the router admits with 422 naming the path, not Fastify's 414", async () => {
    const res = await app.inject({ url: `/engine/trace/${'a'.repeat(101)}` });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({
      code: 'validation_failed',
      detail: '1 invalid field: path',
      errors: [{ field: 'path', message: 'a path parameter is longer than 100 characters' }],
    });
  });

  it('answers a known path asked with another method with 405, the methods it has in Allow, and the error body', async () => {
    const res = await app.inject({ method: 'GET', url: '/engine/authorize' });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('POST');
    expect(res.json()).toEqual({ code: 'method_not_allowed', detail: 'GET is not allowed on /engine/authorize; allowed: POST' });
    // A parametric path too, and a path with no route at all stays a 404.
    const put = await app.inject({ method: 'PUT', url: '/engine/trace/0b1e6a36-7d0e-4c53-9b46-1f1a3f6b2c11' });
    expect(put.statusCode).toBe(405);
    expect(put.headers.allow).toMatch(/GET/);
    expect((await app.inject({ method: 'DELETE', url: '/engine/nothing-here' })).statusCode).toBe(404);
  });
});

describe('request ids', () => {
  it('mints one when none is given', async () => {
    const res = await app.inject({ url: '/engine/health' });
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('echoes a sane caller id and replaces an unsafe one', async () => {
    expect((await app.inject({ url: '/v1/health', headers: { 'x-request-id': 'agent-7:abc.1' } })).headers['x-request-id']).toBe('agent-7:abc.1');
    const res = await app.inject({ url: '/v1/health', headers: { 'x-request-id': 'bad id\twith spaces' } });
    expect(res.headers['x-request-id']).not.toBe('bad id\twith spaces');
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('OpenAPI', () => {
  it('serves an OpenAPI 3.1 document of interface version 1.1.0 with the routes', async () => {
    const res = await app.inject({ url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.1.0');
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/engine/health', '/v1/health']));
  });

  it('serves a reference page at /docs', async () => {
    const res = await app.inject({ url: '/docs/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
  });
});
