/**
 * Guarantee: no secret and no personal data reaches the logs. A server at LOG_LEVEL=debug (every request
 * logged) with every secret setting set goes through a working day and its failures: agents with personal
 * names, orders with a regulatory block naming a decision maker, binds, reads, proofs, refused and malformed
 * requests, signed heartbeats, a registration whose mail server is down, a store outage mid-request, an
 * erasure, and a graceful stop. Its whole output (stdout and stderr) then holds none of the engine tokens,
 * API keys, signing keys, the master key, the store's and the mail server's passwords, the agents' names, the
 * decision makers' names or the e-mail addresses, in any of their encodings.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../setup/pg-cluster.js';
import { issueAccountKey } from '../../src/signals/ops/keys.js';
import { privateStore, type PrivateStore } from './support/cluster.js';
import { authorizeRequest, bearer, bindRequest, engineSettings, publishRegime, registerAgent, type Agent, type EngineSettings } from './support/engine.js';
import { Client } from './support/http.js';
import { startServerProcess, type ServerProcess } from './support/server.js';
import { removeTempDirs, tempDir } from './support/temp.js';

let store: PrivateStore;
let settings: EngineSettings;
let server: ServerProcess;
/** Every value that must not appear in the log. */
const secrets = new Map<string, string>();

const hexAndBase64 = (name: string, bytes: Buffer): void => {
  secrets.set(`${name} (hex)`, bytes.toString('hex'));
  secrets.set(`${name} (base64)`, bytes.toString('base64').replace(/=+$/, ''));
};

beforeAll(async () => {
  store = await privateStore();
  const dir = await tempDir('secrets');
  const masterKey = randomBytes(32);
  const masterKeyFile = path.join(dir, 'master.key');
  writeFileSync(masterKeyFile, `${masterKey.toString('hex')}\n`, { mode: 0o600 });
  const regimeSigningKey = randomBytes(32);
  const logSigningKey = randomBytes(32);
  const smtpPassword = `smtp-${randomBytes(12).toString('hex')}`;
  settings = await engineSettings(store.url, {
    env: {
      LOG_LEVEL: 'debug',
      KMS_PROVIDER: 'local',
      KMS_MASTER_KEY_FILE: masterKeyFile,
      REGIME_SIGNING_KEY: regimeSigningKey.toString('hex'),
      LOG_SIGNING_KEY: logSigningKey.toString('base64'),
      // A mail server that refuses connections: registration fails, and says so in the log.
      SMTP_URL: `smtp://mailer:${smtpPassword}@127.0.0.1:${await freePort()}`,
    },
  });
  secrets.set('owner token', settings.ownerToken);
  secrets.set('store password', store.password);
  secrets.set('mail server password', smtpPassword);
  hexAndBase64('master key', masterKey);
  hexAndBase64('heartbeat signing key', regimeSigningKey);
  hexAndBase64('log signing key', logSigningKey);
  server = await startServerProcess(settings.env, 'secrets');
}, 180_000);
afterAll(async () => {
  await server?.kill();
  await store?.close();
  await removeTempDirs();
});

const person = (): string => `Ada ${randomUUID().slice(0, 8)} Lovelace`;

describe('the logs of a server at LOG_LEVEL=debug', () => {
  it('hold no token, key, password or personal data, through a day of work, failures and a store outage', async () => {
    const client = new Client(server.url, 8);
    const regime = await publishRegime(client, settings.ownerToken);
    const agents: Agent[] = [];
    for (let i = 0; i < 3; i++) {
      const name = person();
      secrets.set(`agent name ${i}`, name);
      const agent = await registerAgent(client, settings.ownerToken, { name });
      secrets.set(`client token ${i}`, agent.token);
      agents.push(agent);
    }
    const regulatory = (): Record<string, string> => {
      const maker = person();
      secrets.set(`decision maker ${secrets.size}`, maker);
      return { mifid_decision_maker: maker, mifid_algo_id: 'algo-1', jurisdiction: 'EU' };
    };

    // Orders, binds and reads.
    const [first, second, third] = agents as [Agent, Agent, Agent];
    const sealed = await client.json<{ trace_id: string }>(authorizeRequest(settings, first, regime, { regulatory: regulatory() }), 200);
    await client.json(bindRequest(first, sealed.trace_id), 200);
    for (const p of [
      `/engine/trace/${sealed.trace_id}`,
      `/engine/trace/${sealed.trace_id}/verify`,
      '/engine/traces?limit=10',
      '/engine/log/head',
      `/engine/log/proof/${sealed.trace_id}`,
    ]) {
      await client.send({ method: 'GET', path: p, headers: bearer(first.token) });
    }
    await client.send({ method: 'GET', path: `/engine/admin/agents/${first.agentId}`, headers: bearer(settings.ownerToken) });

    // Refused and malformed requests, personal data inside them.
    const maker = regulatory().mifid_decision_maker!;
    await client.send(authorizeRequest(settings, second, regime, { regulatory: { mifid_decision_maker: maker, unknown: maker } }));
    await client.send(authorizeRequest(settings, second, regime, { agent_id: third.agentId, regulatory: regulatory() }));
    await client.send({ ...bindRequest(first, sealed.trace_id), headers: bearer(`${settings.ownerToken.slice(0, -4)}AAAA`) });
    await client.send({ method: 'POST', path: '/engine/admin/agents', headers: bearer(first.token), body: { name: person(), max_notional: 1, models: [] } });
    await client.send({
      method: 'POST',
      path: '/engine/authorize',
      headers: { ...bearer(first.token), 'content-type': 'application/json' },
      body: `{"regulatory":{"mifid_decision_maker":"${maker}"`,
    });

    // The signal service: signed heartbeats, the account, a registration the mail server refuses.
    const email = `ada.${randomUUID().slice(0, 8)}@example.test`;
    secrets.set('e-mail address', email);
    const key = await issueAccountKey(store.admin, { email: `desk.${randomUUID().slice(0, 8)}@example.test`, tier: 'engine_sidecar' });
    secrets.set('API key', key.api_key);
    secrets.set('API key account e-mail', key.email);
    await client.json({ method: 'GET', path: '/v1/engine/heartbeat', headers: { 'x-signals-key': key.api_key } }, 200);
    await client.json({ method: 'GET', path: '/v1/account', headers: { 'x-signals-key': key.api_key } }, 200);
    const registered = await client.send({ method: 'POST', path: '/v1/auth/register', body: { email } });
    expect(registered.status, registered.body).toBe(503);
    await client.send({ method: 'POST', path: '/v1/auth/verify', body: { email, code: '123456' } });

    // A store outage while orders with personal data are in flight: the failures are logged.
    await store.cluster.halt('fast');
    const during = await Promise.all([
      client.send(authorizeRequest(settings, second, regime, { regulatory: regulatory() })),
      client.send(authorizeRequest(settings, third, regime, { regulatory: regulatory() })),
      client.send({
        method: 'POST',
        path: '/engine/admin/agents',
        headers: bearer(settings.ownerToken),
        body: { name: person(), max_notional: 1000, models: [] },
      }),
      client.send({ method: 'GET', path: '/v1/account', headers: { 'x-signals-key': key.api_key } }),
    ]);
    await store.cluster.resume();
    expect(during.map((a) => a.status)).toContain(503);
    for (let i = 0; i < 100 && (await client.send({ method: 'GET', path: '/engine/health' })).status !== 200; i++) await new Promise((r) => setTimeout(r, 100));

    // An erasure, then a graceful stop.
    await client.json({ method: 'POST', path: `/engine/admin/gdpr-erase/${first.agentId}`, headers: bearer(settings.ownerToken) }, 200);
    client.close();
    await server.stop();

    const log = server.log();
    // The log is there and says what happened: requests at debug, the failures at warn.
    expect(log).toMatch(/"msg":"incoming request"/);
    expect(log).toMatch(/"level":40,[^\n]*"msg":"request failed"/);
    const leaked = [...secrets].filter(([, value]) => log.includes(value) || log.includes(JSON.stringify(value).slice(1, -1)));
    expect(leaked.map(([what]) => what)).toEqual([]);
  }, 180_000);
});
