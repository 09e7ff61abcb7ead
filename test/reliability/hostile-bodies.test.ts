/**
 * Guarantee: no request body can make the server fail or hang. Every write endpoint of both services (every
 * POST, PUT, PATCH and DELETE of the API document) gets BODIES_PER_ENDPOINT hostile bodies generated from its
 * schema (./support/hostile.ts: wrong types, missing fields, huge numbers, deep nesting, long strings, invalid
 * UTF-8, duplicate member names, unknown members, NUL bytes, lying Content-Types), sent with real concurrency
 * to a real server with valid credentials, so that each reaches the body's parsing and validation: an owner key on
 * the owner's routes (`/v1/admin/…`), unknown ids in the paths, and on `/v1/auth/rotate`, which revokes the key it
 * is called with, a key per concurrent lane that follows each rotation to the key it returned. Each is answered
 * below 500 within 10 s, none is refused at the door (401 or 403), the server logs no error, and it is healthy
 * afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES, isErrorCode } from '../../src/core/errors.js';
import { BODY_LIMIT_BYTES } from '../../src/http/app.js';
import { issueAccountKey } from '../../src/signals/ops/keys.js';
import { privateStore, type PrivateStore } from './support/cluster.js';
import { bearer, engineSettings, publishRegime, registerAgent, type EngineSettings } from './support/engine.js';
import { HostileBodies, prng, type HostileBody } from './support/hostile.js';
import { Client, type Answer } from './support/http.js';
import { startServerProcess, type ServerProcess } from './support/server.js';
import { removeTempDirs } from './support/temp.js';

const BODIES_PER_ENDPOINT = 10_000;
const CONCURRENCY = 16;
const SEED = 20_251_126;

interface Operation {
  method: string;
  path: string;
  requestBody?: { content?: Record<string, { schema?: Record<string, unknown> }> };
  security?: Array<Record<string, string[]>>;
}

let store: PrivateStore;
let settings: EngineSettings;
let server: ServerProcess;
let client: Client;
const operations: Operation[] = [];
let agentId: string;
let signalsKey: string;
let ownerKey: string;
/** The key each concurrent lane presents to `/v1/auth/rotate`: the one its last rotation returned. */
let rotateKeys: string[];
let doc: { paths: Record<string, Record<string, Operation>>; components?: { schemas?: Record<string, Record<string, unknown>> } };

beforeAll(async () => {
  store = await privateStore();
  settings = await engineSettings(store.url);
  server = await startServerProcess(settings.env, 'hostile');
  client = new Client(server.url, CONCURRENCY, 10_000);
  await publishRegime(client, settings.ownerToken);
  agentId = (await registerAgent(client, settings.ownerToken)).agentId;
  signalsKey = (await issueAccountKey(store.admin, { email: 'hostile@example.test', tier: 'pro' })).api_key;
  ownerKey = (await issueAccountKey(store.admin, { email: 'hostile-owner@example.test', tier: 'owner' })).api_key;
  rotateKeys = [];
  for (let lane = 0; lane < CONCURRENCY; lane++) {
    rotateKeys.push((await issueAccountKey(store.admin, { email: `hostile-rotate-${lane}@example.test`, tier: 'pro' })).api_key);
  }
  doc = await client.json({ method: 'GET', path: '/openapi.json' }, 200);
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (['post', 'put', 'patch', 'delete'].includes(method)) operations.push({ ...op, method: method.toUpperCase(), path });
    }
  }
}, 180_000);
afterAll(async () => {
  client?.close();
  await server?.stop();
  await store?.close();
  await removeTempDirs();
});

/**
 * The URL of an operation: the agent's real id, an unknown id of the right form for the rest (a parameter that
 * failed its own validation would answer before the body is read; an unknown token or key revokes nothing).
 */
function urlOf(op: Operation): string {
  return op.path.replace('{agent_id}', agentId).replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000');
}

function credentialsOf(op: Operation, lane: number): Record<string, string> {
  const scheme = Object.keys(op.security?.[0] ?? {})[0];
  if (scheme === 'bearer') return bearer(settings.ownerToken);
  if (scheme !== 'signalsKey') return {};
  if (op.path === '/v1/auth/rotate') return { 'x-signals-key': rotateKeys[lane]! };
  return { 'x-signals-key': op.path.startsWith('/v1/admin/') ? ownerKey : signalsKey };
}

/** Resolves a `$ref` into the document's components (Fastify names shared schemas there). */
function resolve(schema: Record<string, unknown>): Record<string, unknown> {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  const name = ref.replace(/^#\/components\/schemas\//, '').replace(/#$/, '');
  return doc.components?.schemas?.[name] ?? {};
}

describe(`${BODIES_PER_ENDPOINT} hostile bodies per write endpoint`, () => {
  it('are each answered below 500 within 10 s, and leave the server healthy with no error logged', async () => {
    expect(operations.length).toBeGreaterThanOrEqual(15);
    const failures: string[] = [];
    const seen = new Map<number, number>();
    const atTheDoor = new Map<string, number>();
    for (const [o, op] of operations.entries()) {
      const schema = op.requestBody?.content?.['application/json']?.schema ?? { type: 'object' };
      const bodies = new HostileBodies(prng(SEED + o), resolve);
      const url = urlOf(op);
      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async (_, lane) => {
          while (next < BODIES_PER_ENDPOINT) {
            const body: HostileBody = bodies.body(schema, next++);
            const answer: Answer = await client.send({
              method: op.method,
              path: url,
              body: body.bytes,
              headers: { ...credentialsOf(op, lane), ...(body.contentType === null ? {} : { 'content-type': body.contentType }) },
            });
            seen.set(answer.status, (seen.get(answer.status) ?? 0) + 1);
            // Refused for its credentials (401, or a 403 that is not a policy's denial of a parsed, valid order).
            const code = /"code":"([^"]+)"/.exec(answer.body)?.[1] ?? '';
            if (answer.status === 401 || (answer.status === 403 && !(isErrorCode(code) && ERROR_CODES[code].kind === 'denial'))) {
              const what = `${op.method} ${op.path} ${answer.status} ${code}`;
              atTheDoor.set(what, (atTheDoor.get(what) ?? 0) + 1);
            }
            if (op.path === '/v1/auth/rotate' && answer.status === 200) rotateKeys[lane] = (JSON.parse(answer.body) as { api_key: string }).api_key;
            // A body over the limit may be refused (413) before it is read to its end: the connection then closes.
            const overLimit = body.bytes.length > BODY_LIMIT_BYTES && answer.status === 0 && /^(ECONNRESET|EPIPE)$/.test(answer.error ?? '');
            // With nothing published, the signal service's data routes answer a valid body 503 `pipeline_lag`.
            const noData = answer.status === 503 && op.path.startsWith('/v1/') && answer.body.includes('"code":"pipeline_lag"');
            if ((answer.status === 0 && !overLimit) || (answer.status >= 500 && !noData) || answer.ms > 10_000) {
              failures.push(`${op.method} ${op.path} ${body.what}: ${answer.status} ${answer.error ?? answer.body.slice(0, 300)} (${answer.ms} ms)`);
            }
          }
        }),
      );
    }
    expect(failures.slice(0, 20), `${failures.length} failures (seed ${SEED}); answers by status: ${JSON.stringify(Object.fromEntries(seen))}`).toEqual([]);
    // Every body reached the parser and the validation: none was refused for its credentials.
    expect(Object.fromEntries(atTheDoor)).toEqual({});
    // Mostly refused, as hostile bodies should be, but not all: some mutations leave a valid body.
    expect(seen.get(422) ?? 0).toBeGreaterThan(operations.length * BODIES_PER_ENDPOINT * 0.3);

    const health = await client.send({ method: 'GET', path: '/engine/health' });
    expect(health.status, health.body).toBe(200);
    const errors = server
      .log()
      .split('\n')
      .filter((l) => /^\{"level":(50|60)/.test(l));
    expect(errors.slice(0, 5)).toEqual([]);
  }, 600_000);
});
