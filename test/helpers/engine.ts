/**
 * An engine under test: a real store (see ./db.ts), the real app through `inject()`, an owner token, a
 * regime operator key pair, a clock the test moves, and factories for valid requests that tests then break.
 * Every response `call()` receives is checked against the API document (./openapi-responses.ts): a status,
 * content type or body the document does not describe fails the test that received it.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { configWith, type Config } from '../../src/core/config.js';
import { generateKeyPair, sign } from '../../src/core/crypto/ed25519.js';
import { createEngineContext, type EngineContext } from '../../src/engine/context.js';
import { heartbeatMessage, formatSignature, type SignatureScheme } from '../../src/core/records/heartbeat.js';
import { loadPolicy, parsePolicy, type PolicyDocument } from '../../src/engine/policy/policy.js';
import { bootstrapOwnerToken } from '../../src/engine/store/tokens.js';
import { REGIME_IDS, type Regime } from '../../src/core/vocabulary.js';
import { buildApp } from '../../src/http/app.js';
import { testStore, type TestStore } from './db.js';
import type { OpenApiDocument } from './openapi.js';
import { responseChecker } from './openapi-responses.js';

export const MODEL_HASH = 'a'.repeat(64);

export interface EngineHarnessOptions {
  config?: Partial<Config>;
  policy?: Partial<PolicyDocument>;
  /** Connections in the pool (concurrency tests want more). */
  max?: number;
  log?: boolean;
  /** Records the text of every statement the server sends through its pool (`queries`), to count store reads. */
  recordQueries?: boolean;
}

export interface EngineHarness {
  store: TestStore;
  app: FastifyInstance;
  ctx: EngineContext;
  config: Config;
  ownerToken: string;
  operator: { secretKey: Uint8Array; publicKey: Uint8Array };
  clock: { now: number };
  call(method: string, url: string, body?: unknown, token?: string | null): Promise<LightMyRequestResponse>;
  registerAgent(overrides?: Record<string, unknown>): Promise<{ agent_id: string; token: string }>;
  publishRegime(regime: Regime, riskScore?: number): Promise<{ hash: string; regime_id: number }>;
  order(agentId: string, overrides?: Record<string, unknown>): Record<string, unknown>;
  heartbeat(
    sequenceId: number,
    overrides?: { timestamp_ms?: number; regime_id?: number; mta_ref?: string | null; scheme?: SignatureScheme; key?: Uint8Array },
  ): Record<string, unknown>;
  /** With `recordQueries`: every statement's text the server sent, in order (a test may empty it). */
  queries: string[];
  close(): Promise<void>;
}

export async function engineHarness(options: EngineHarnessOptions = {}): Promise<EngineHarness> {
  const store = await testStore(options.max ? { max: options.max } : {});
  const operator = generateKeyPair();
  const clock = { now: Date.now() };
  const config = configWith({ logLevel: 'silent', regimeOperatorPubkey: operator.publicKey, ...options.config });
  const base = loadPolicy(config.policyPath).document;
  const policy = parsePolicy({ ...structuredClone(base), ...options.policy });
  const queries: string[] = [];
  // A tagged-template call is a statement (or a fragment of one): its text is recorded, the call goes on as made.
  const sql = options.recordQueries
    ? new Proxy(store.sql, {
        apply(target, self, args: unknown[]) {
          const strings = args[0];
          if (Array.isArray(strings)) queries.push(strings.join('$'));
          return Reflect.apply(target, self, args) as unknown;
        },
      })
    : store.sql;
  const ctx = await createEngineContext(config, sql, { now: () => clock.now, policy });
  // `log: true` prints server faults (5xx) to stderr, for diagnosing a failing test.
  const app = await buildApp({ ...config, logLevel: options.log ? 'error' : 'silent' }, { sql, logger: options.log ?? false, engine: ctx });
  await app.ready();
  const owner = await bootstrapOwnerToken(store.sql);
  if (!owner) throw new Error('bootstrap failed');

  const checker = responseChecker(app.swagger() as unknown as OpenApiDocument);
  const call: EngineHarness['call'] = async (method, url, body, token = owner.token) => {
    const res = await app.inject({
      method: method as 'GET',
      url,
      ...(body === undefined ? {} : { payload: body as object }),
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
    checker.check({ method, url, statusCode: res.statusCode, headers: res.headers, body: res.body });
    return res;
  };

  let regime: { hash: string; regime_id: number } | null = null;
  const harness: EngineHarness = {
    store,
    app,
    ctx,
    config,
    ownerToken: owner.token,
    operator,
    clock,
    queries,
    call,
    async registerAgent(overrides = {}) {
      const res = await call('POST', '/engine/admin/agents', {
        name: `agent-${randomUUID().slice(0, 8)}`,
        max_notional: 200_000,
        models: [{ model_id: 'alpha-7', model_hash_hex: MODEL_HASH }],
        ...overrides,
      });
      if (res.statusCode !== 201) throw new Error(`register failed: ${res.body}`);
      const agentId = res.json().agent_id as string;
      const tok = await call('POST', '/engine/admin/tokens', { client_name: 'agent', agent_ids: [agentId] });
      return { agent_id: agentId, token: tok.json().token as string };
    },
    async publishRegime(name, riskScore = 0.2) {
      const res = await call('POST', '/engine/admin/regime', { regime: name, risk_score: riskScore, reason: 'test' });
      if (res.statusCode !== 201) throw new Error(`publish failed: ${res.body}`);
      regime = { hash: res.json().hash, regime_id: REGIME_IDS[name] };
      clock.now = Math.max(clock.now, Date.parse(res.json().published_at));
      return regime;
    },
    order(agentId, overrides = {}) {
      return {
        agent_id: agentId,
        model_hash_hex: MODEL_HASH,
        model_id: 'alpha-7',
        prompt_version: 'p-3',
        feature_schema_id: 'fs-1',
        hyperparameter_checksum: 'h-9',
        action: 'Long',
        asset: 'AAPL',
        order_type: 'Limit',
        venue_id: 'XNAS',
        quantity: 100,
        limit_price: 190,
        notional: 19_000,
        client_order_id: randomUUID(),
        agent_valid_time: clock.now,
        ...overrides,
      };
    },
    heartbeat(sequenceId, o = {}) {
      const fields = {
        sequence_id: sequenceId,
        timestamp_ms: o.timestamp_ms ?? clock.now,
        regime_id: o.regime_id ?? regime?.regime_id ?? 0,
        ...(o.mta_ref === null ? {} : { mta_ref: o.mta_ref ?? regime?.hash }),
      };
      const scheme = o.scheme ?? 'ed25519';
      return { ...fields, signature: formatSignature(scheme, sign(heartbeatMessage(fields, scheme), o.key ?? operator.secretKey)) };
    },
    async close() {
      await app.close();
      ctx.state.stop();
      await store.close();
    },
  };
  return harness;
}
