/**
 * Guarantee: no secret and no personal data reaches the logs at the most verbose level. A server at
 * LOG_LEVEL=trace with its mail kept in the outbox goes through the whole life of a signal-service customer
 * and an engine agent, with personal data in query strings as well as bodies: registration (and its
 * refusals), the operator's outbox read, verification (a wrong code, then the right one), the account, the
 * operator's key and tier routes, rotation and the revoked key, a webhook (its URL carrying a token, its test
 * delivery failing), the data routes with query parameters, engine agents with personal names, orders with a
 * decision maker, a bind, reads with queries, and refused, malformed and unknown requests. Its whole output
 * then holds none of the e-mail addresses, verification codes, API keys, tokens, webhook secrets, names or
 * query values, in any of their encodings; the request lines are there, with their query values redacted.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../setup/pg-cluster.js';
import { issueAccountKey } from '../../src/signals/ops/keys.js';
import { privateStore, type PrivateStore } from './support/cluster.js';
import { authorizeRequest, bearer, bindRequest, engineSettings, publishRegime, registerAgent, type Agent, type EngineSettings } from './support/engine.js';
import { Client } from './support/http.js';
import { startServerProcess, type ServerProcess } from './support/server.js';
import { removeTempDirs } from './support/temp.js';

let store: PrivateStore;
let settings: EngineSettings;
let server: ServerProcess;
/** Every value that must not appear in the log; `digits` are matched only where no other digit touches them. */
const secrets = new Map<string, string>();
const digits = new Set<string>();

beforeAll(async () => {
  store = await privateStore();
  settings = await engineSettings(store.url, { env: { LOG_LEVEL: 'trace', WEBHOOK_ALLOW_PRIVATE: 'true' } });
  secrets.set('owner token', settings.ownerToken);
  secrets.set('store password', store.password);
  server = await startServerProcess(settings.env, 'secrets-trace');
}, 180_000);
afterAll(async () => {
  await server?.kill();
  await store?.close();
  await removeTempDirs();
});

const person = (): string => `Grace ${randomUUID().slice(0, 8)} Hopper`;
const address = (tag: string): string => `${tag}.${randomUUID().slice(0, 8)}@example.test`;
const secret = <T extends string>(what: string, value: T): T => {
  secrets.set(what, value);
  return value;
};
const q = encodeURIComponent;

/** Every form a value could take in a log line: as is, inside a JSON string, percent-encoded, form-encoded. */
const forms = (value: string): string[] => [
  ...new Set([value, JSON.stringify(value).slice(1, -1), encodeURIComponent(value), encodeURIComponent(value).replace(/%20/g, '+')]),
];

describe('the logs of a server at LOG_LEVEL=trace', () => {
  it("hold no address, code, key, token, secret, name or query value through a customer's and an agent's whole day", async () => {
    const client = new Client(server.url, 8);
    const key = (k: string): Record<string, string> => ({ 'x-signals-key': k });
    const owner = await issueAccountKey(store.admin, { email: secret('owner e-mail', address('operator')), tier: 'owner' });
    secret('owner key', owner.api_key);

    // Registration: the mail goes to the outbox; a second register within the minute, and a malformed one, are refused.
    const email = secret('customer e-mail', address('ada'));
    await client.json({ method: 'POST', path: '/v1/auth/register', body: { email } }, 202);
    expect((await client.send({ method: 'POST', path: '/v1/auth/register', body: { email } })).status).toBe(429);
    expect((await client.send({ method: 'POST', path: '/v1/auth/register', body: { email, name: secret('a name sent to register', person()) } })).status).toBe(
      422,
    );
    expect(
      (await client.send({ method: 'POST', path: '/v1/auth/register', body: `{"email": "${email}"`, headers: { 'content-type': 'application/json' } })).status,
    ).toBe(422);

    // The operator reads the outbox (by address) and passes the code on; a wrong code first, then the right one.
    const outbox = await client.json<{ messages: Array<{ body: string }> }>(
      { method: 'GET', path: `/v1/admin/outbox?to=${q(email)}&limit=1`, headers: key(owner.api_key) },
      200,
    );
    const code = /verification code is (\d{6})\./.exec(outbox.messages[0]!.body)![1]!;
    digits.add(code);
    const wrongCode = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    digits.add(wrongCode);
    expect((await client.send({ method: 'POST', path: '/v1/auth/verify', body: { email, code: wrongCode } })).status).toBe(422);
    const verified = await client.json<{ api_key: string }>({ method: 'POST', path: '/v1/auth/verify', body: { email, code } }, 201);
    const first = secret('first API key', verified.api_key);

    // The account, the operator's routes (queries with the address), rotation and the revoked key.
    await client.json({ method: 'GET', path: '/v1/account', headers: key(first) }, 200);
    await client.json({ method: 'GET', path: `/v1/admin/keys?email=${q(email)}`, headers: key(owner.api_key) }, 200);
    await client.json({ method: 'POST', path: '/v1/admin/tier', headers: key(owner.api_key), body: { email, tier: 'pro' } }, 200);
    const rotated = await client.json<{ api_key: string }>({ method: 'POST', path: '/v1/auth/rotate', headers: key(first) }, 200);
    const second = secret('rotated API key', rotated.api_key);
    expect((await client.send({ method: 'GET', path: '/v1/account', headers: key(first) })).status).toBe(403);
    expect((await client.send({ method: 'GET', path: '/v1/account', headers: key(`${second.slice(0, -4)}AAAA`) })).status).toBe(401);
    const issued = await client.json<{ api_key: string }>(
      {
        method: 'POST',
        path: '/v1/admin/keys',
        headers: key(owner.api_key),
        body: { email: secret('issued key e-mail', address('desk')), tier: 'engine_sidecar' },
      },
      201,
    );
    secret('issued API key', issued.api_key);

    // A webhook whose URL carries a token; its test delivery finds nobody listening.
    const hookToken = secret('webhook URL token', randomBytes(16).toString('hex'));
    const hook = await client.json<{ secret: string }>(
      { method: 'PUT', path: '/v1/webhook', headers: key(second), body: { url: `http://127.0.0.1:${await freePort()}/hook?token=${hookToken}` } },
      200,
    );
    secret('webhook secret', hook.secret);
    const test = await client.json<{ delivered: boolean }>({ method: 'GET', path: '/v1/webhook/test', headers: key(second) }, 200);
    expect(test.delivered).toBe(false);
    await client.json({ method: 'GET', path: '/v1/webhook/info', headers: key(second) }, 200);

    // The data routes with query strings, valid or not (nothing is published: 503 pipeline_lag is an answer too).
    const stranger = secret('an address in a data query', address('query'));
    for (const path of [
      '/v1/signals/range?start=2024-01-02&end=2024-02-01',
      '/v1/signals/history?days=5',
      `/v1/signals/history?days=5&email=${q(stranger)}`,
      `/v1/signals/range?start=${q(stranger)}&end=2024-02-01`,
      '/v1/signals/latest',
      `/v1/nowhere?to=${q(stranger)}`,
    ]) {
      const a = await client.send({ method: 'GET', path, headers: key(second) });
      expect(a.status < 500 || a.status === 503, `${path}: ${a.status} ${a.body}`).toBe(true);
    }

    // The engine: agents with personal names, an order with a decision maker, a bind, reads with queries, refusals.
    const regime = await publishRegime(client, settings.ownerToken);
    const agents: Agent[] = [];
    for (let i = 0; i < 2; i++) {
      const agent = await registerAgent(client, settings.ownerToken, { name: secret(`agent name ${i}`, person()) });
      secret(`agent token ${i}`, agent.token);
      agents.push(agent);
    }
    const [alpha, beta] = agents as [Agent, Agent];
    const maker = (): Record<string, string> => ({
      mifid_decision_maker: secret(`decision maker ${secrets.size}`, person()),
      mifid_algo_id: 'algo-1',
      jurisdiction: 'EU',
    });
    const sealed = await client.json<{ trace_id: string }>(authorizeRequest(settings, alpha, regime, { regulatory: maker() }), 200);
    await client.json(bindRequest(alpha, sealed.trace_id), 200);
    const who = secret('a name in an engine query', person());
    for (const path of [
      `/engine/trace/${sealed.trace_id}`,
      '/engine/traces?limit=10',
      `/engine/traces?limit=5&note=${q(who)}`,
      `/engine/log/proof/${sealed.trace_id}`,
    ]) {
      await client.send({ method: 'GET', path, headers: bearer(alpha.token) });
    }
    expect((await client.send(authorizeRequest(settings, beta, regime, { agent_id: alpha.agentId, regulatory: maker() }))).status).toBe(403);
    expect((await client.send(authorizeRequest(settings, beta, regime, { regulatory: { ...maker(), unknown: who } }))).status).toBe(422);
    await client.send({
      method: 'POST',
      path: '/engine/authorize',
      headers: { ...bearer(beta.token), 'content-type': 'application/json' },
      body: `{"regulatory":{"mifid_decision_maker":"${who}"`,
    });
    await client.send({
      method: 'POST',
      path: '/engine/admin/agents',
      headers: bearer(beta.token),
      body: { name: secret('a name sent without the right', person()), max_notional: 1, models: [] },
    });

    client.close();
    await server.stop();

    const log = server.log();
    expect(log).toMatch(/"msg":"incoming request"/);
    const leaked = [...secrets].filter(([, value]) => forms(value).some((form) => log.includes(form))).map(([what]) => what);
    const codes = [...digits].filter((d) => new RegExp(`(?<!\\d)${d}(?!\\d)`).test(log));
    expect({ leaked, codes }).toEqual({ leaked: [], codes: [] });
    // The log still says what was asked: every request line, with the query's names and no values.
    expect(log).toContain('/v1/admin/outbox?to=[redacted]&limit=[redacted]');
    expect(log).toContain('/v1/signals/history?days=[redacted]&email=[redacted]');
  }, 180_000);
});
