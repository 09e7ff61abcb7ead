/**
 * A running tradeseal for the IRL wire tests: both services on a real port over a real store (../helpers/db.ts),
 * an owner token, a regime broadcast in force, the local key-management provider (so erasure works), and the
 * signal service as the regime operator: the engine's REGIME_OPERATOR_PUBKEY is the signal service's stored
 * key, and `heartbeat()` fetches a signed heartbeat from `GET /v1/engine/heartbeat` with an engine tier key,
 * handing it on as an IRL regime operator publishes it (the signature as bare base64).
 *
 * `send(call)` puts a fixture's request on the wire with Node's `fetch`, byte for byte as the fixture gives it.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { configWith } from '../../src/core/config.js';
import { startServer, type RunningServer } from '../../src/http/server.js';
import { loadSigningKey } from '../../src/signals/signing-key.js';
import { issueKey } from '../../src/signals/store/keys.js';
import { testStore, type TestStore } from '../helpers/db.js';
import type { IssuedHeartbeat } from './fixtures/sdk.js';
import type { Call, WireRequest } from './fixtures/wire.js';

export interface Answer {
  status: number;
  text: string;
  /** The parsed body; undefined when it is not JSON. */
  json: any;
}

export interface IrlServer {
  url: string;
  store: TestStore;
  ownerToken: string;
  regime: { hash: string; regime_id: number };
  operatorPublicKey: Uint8Array;
  operatorSecretKey: Uint8Array;
  send(call: Call | WireRequest): Promise<Answer>;
  /** A request to tradeseal's own routes (`/engine/...`), JSON in and out, with the owner token unless given. */
  engine(method: string, route: string, body?: unknown, token?: string): Promise<Answer>;
  /** An agent registered through `/engine` with the model `default` (what `/irl/agents` registers), and a client token for it. */
  agent(modelHashHex: string, maxNotional?: number): Promise<{ agentId: string; token: string }>;
  heartbeat(): Promise<IssuedHeartbeat>;
  close(): Promise<void>;
}

export async function irlServer(options: { layer2?: boolean } = {}): Promise<IrlServer> {
  const store = await testStore({ max: 6 });
  const keyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tradeseal-irl-kms-'));
  let server: RunningServer | undefined;
  try {
    const masterKey = path.join(keyDir, 'master.key');
    fs.writeFileSync(masterKey, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
    const operator = await loadSigningKey(store.sql, { regimeSigningKey: null });
    const ownerToken = `tse_${randomBytes(32).toString('base64url')}`;
    server = await startServer(
      configWith({
        databaseUrl: store.url,
        logLevel: 'silent',
        port: 0,
        host: '127.0.0.1',
        engineOwnerToken: ownerToken,
        layer2Enabled: options.layer2 ?? false,
        regimeOperatorPubkey: operator.publicKey,
        kmsProvider: 'local',
        kmsMasterKeyFile: masterKey,
      }),
    );
    const url = server.url;

    const send = async (c: Call | WireRequest): Promise<Answer> => {
      const req = 'request' in c ? c.request : c;
      const res = await fetch(`${url}${req.path}`, { method: req.method, headers: req.headers, ...(req.body === undefined ? {} : { body: req.body }) });
      const text = await res.text();
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      return { status: res.status, text, json };
    };
    const engine: IrlServer['engine'] = (method, route, body, token = ownerToken) =>
      send({
        method: method as WireRequest['method'],
        path: route,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });

    const published = await engine('POST', '/engine/admin/regime', { regime: 'expansion', risk_score: 0.2, reason: 'IRL wire tests' });
    if (published.status !== 201) throw new Error(`regime publish failed: ${published.text}`);
    const regime = { hash: published.json.hash as string, regime_id: published.json.regime_id as number };

    const accountId = randomUUID();
    await store.sql`insert into signal_accounts (account_id, email, tier, agent_count) values (${accountId}, ${`${accountId}@example.test`}, 'engine_sidecar', 0)`;
    const signalsKey = (await issueKey(store.sql, accountId)).api_key;

    const running = server;
    return {
      url,
      store,
      ownerToken,
      regime,
      operatorPublicKey: operator.publicKey,
      operatorSecretKey: operator.secretKey,
      send,
      engine,
      async agent(modelHashHex, maxNotional = 1_000_000) {
        const reg = await engine('POST', '/engine/admin/agents', {
          name: `agent-${randomUUID().slice(0, 8)}`,
          max_notional: maxNotional,
          models: [{ model_id: 'default', model_hash_hex: modelHashHex }],
        });
        if (reg.status !== 201) throw new Error(`register failed: ${reg.text}`);
        const tok = await engine('POST', '/engine/admin/tokens', { client_name: 'irl-wire-agent', agent_ids: [reg.json.agent_id] });
        if (tok.status !== 200) throw new Error(`token failed: ${tok.text}`);
        return { agentId: reg.json.agent_id as string, token: tok.json.token as string };
      },
      async heartbeat() {
        const res = await send({ method: 'GET', path: '/v1/engine/heartbeat', headers: { 'x-signals-key': signalsKey } });
        if (res.status !== 200) throw new Error(`heartbeat failed: ${res.text}`);
        const hb = res.json as IssuedHeartbeat;
        // The signal service writes `ed25519:<base64>`; an IRL operator publishes the bare base64 of the same bytes.
        return { ...hb, signature: hb.signature.replace(/^ed25519:/, '') };
      },
      async close() {
        await running.close();
        await store.close();
        fs.rmSync(keyDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await server?.close();
    await store.close();
    fs.rmSync(keyDir, { recursive: true, force: true });
    throw err;
  }
}
