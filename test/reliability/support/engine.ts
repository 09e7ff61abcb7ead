/**
 * A compliance engine run as real server processes on a private store: the settings they share (an owner
 * token, Layer 2 with a regime operator key, a policy file), and the setup and requests a trading desk
 * sends over HTTP: a regime broadcast, agents with their client tokens, orders with fresh signed heartbeats,
 * binds of the traces authorize sealed.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateKeyPair, sign, toBase64 } from '../../../src/core/crypto/ed25519.js';
import { formatSignature, heartbeatMessage } from '../../../src/core/records/heartbeat.js';
import { newTokenSecret } from '../../../src/engine/store/tokens.js';
import type { Sql } from '../../../src/store/driver.js';
import type { Client, RequestSpec } from './http.js';
import { tempDir } from './temp.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const MODEL_HASH = 'a'.repeat(64);

export interface Agent {
  agentId: string;
  token: string;
  /** The last heartbeat sequence_id used for this agent. */
  sequence: number;
}

export interface Regime {
  regimeId: number;
  hash: string;
}

export interface EngineSettings {
  /** The server environment (DATABASE_URL is added by the caller's store). */
  env: Record<string, string>;
  ownerToken: string;
  operatorSecret: Uint8Array;
  /** Every secret of `env`, for the secret-leak test. */
  secrets: string[];
}

/** Settings for engine servers on `databaseUrl`: Layer 2 on, the given policy overrides (default: no order throttle). */
export async function engineSettings(
  databaseUrl: string,
  options: { policy?: Record<string, unknown>; env?: Record<string, string> } = {},
): Promise<EngineSettings> {
  const dir = await tempDir('policy');
  const policyPath = path.join(dir, 'policy.json');
  const base = JSON.parse(readFileSync(path.join(REPO, 'data/policy/default.json'), 'utf8')) as Record<string, unknown>;
  writeFileSync(policyPath, JSON.stringify({ ...base, id: 'reliability', max_orders_per_second: null, ...options.policy }));
  const ownerToken = newTokenSecret();
  const operator = generateKeyPair();
  return {
    ownerToken,
    operatorSecret: operator.secretKey,
    secrets: [ownerToken, Buffer.from(operator.secretKey).toString('hex'), toBase64(operator.secretKey)],
    env: {
      DATABASE_URL: databaseUrl,
      ENGINE_OWNER_TOKEN: ownerToken,
      LAYER2_ENABLED: 'true',
      REGIME_OPERATOR_PUBKEY: Buffer.from(operator.publicKey).toString('hex'),
      POLICY_PATH: policyPath,
      LOG_LEVEL: 'info',
      ...options.env,
    },
  };
}

export const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

export async function publishRegime(client: Client, ownerToken: string): Promise<Regime> {
  const b = await client.json<{ regime_id: number; hash: string }>(
    {
      method: 'POST',
      path: '/engine/admin/regime',
      headers: bearer(ownerToken),
      body: { regime: 'expansion', risk_score: 0.2, reason: 'reliability suite' },
    },
    201,
  );
  return { regimeId: b.regime_id, hash: b.hash };
}

export async function registerAgent(client: Client, ownerToken: string, overrides: Record<string, unknown> = {}): Promise<Agent> {
  const a = await client.json<{ agent_id: string }>(
    {
      method: 'POST',
      path: '/engine/admin/agents',
      headers: bearer(ownerToken),
      body: { name: `agent-${randomUUID().slice(0, 8)}`, max_notional: 1_000_000, models: [{ model_id: 'alpha-7', model_hash_hex: MODEL_HASH }], ...overrides },
    },
    201,
  );
  const t = await client.json<{ token: string }>(
    {
      method: 'POST',
      path: '/engine/admin/tokens',
      headers: bearer(ownerToken),
      body: { client_name: 'agent', agent_ids: [a.agent_id] },
    },
    200,
  );
  return { agentId: a.agent_id, token: t.token, sequence: 0 };
}

/** A heartbeat of the regime in force, signed by the operator, with the agent's next sequence_id. */
export function heartbeat(settings: EngineSettings, agent: Agent, regime: Regime, sequence = ++agent.sequence): Record<string, unknown> {
  const fields = { sequence_id: sequence, timestamp_ms: Date.now(), regime_id: regime.regimeId, mta_ref: regime.hash };
  return { ...fields, signature: formatSignature('ed25519', sign(heartbeatMessage(fields, 'ed25519'), settings.operatorSecret)) };
}

export interface AuthorizeSpec extends RequestSpec {
  kind: 'authorize';
  agent: Agent;
  clientOrderId: string;
}

export interface BindSpec extends RequestSpec {
  kind: 'bind';
  traceId: string;
  exchangeTxId: string;
}

/** An order the default policy passes, with a fresh heartbeat. */
export function authorizeRequest(settings: EngineSettings, agent: Agent, regime: Regime, overrides: Record<string, unknown> = {}): AuthorizeSpec {
  const clientOrderId = (overrides.client_order_id as string | undefined) ?? randomUUID();
  return {
    kind: 'authorize',
    agent,
    clientOrderId,
    method: 'POST',
    path: '/engine/authorize',
    headers: bearer(agent.token),
    body: {
      agent_id: agent.agentId,
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
      client_order_id: clientOrderId,
      agent_valid_time: Date.now(),
      heartbeat: heartbeat(settings, agent, regime),
      ...overrides,
    },
  };
}

export function bindRequest(agent: Agent, traceId: string, exchangeTxId = `X-${randomUUID()}`): BindSpec {
  return {
    kind: 'bind',
    traceId,
    exchangeTxId,
    method: 'POST',
    path: '/engine/bind-execution',
    headers: bearer(agent.token),
    body: {
      trace_id: traceId,
      exchange_tx_id: exchangeTxId,
      execution_status: 'Filled',
      asset: 'AAPL',
      executed_quantity: 100,
      executed_side: 'Long',
      execution_price: 190,
      execution_time_ms: Date.now(),
    },
  };
}

/**
 * What the engine acknowledged (authorize and bind answered 200), to check against the store afterwards:
 * every acknowledged trace is there with the reasoning_hash answered, every acknowledged bind with its
 * exchange_tx_id and final_proof.
 */
export class Ledger {
  readonly authorized = new Map<string, { spec: AuthorizeSpec; traceId: string; reasoningHash: string }>();
  readonly bound = new Map<string, { exchangeTxId: string; finalProof: string }>();

  /** Records a 200 of authorize or bind; returns the trace id an authorize sealed. */
  record(request: RequestSpec, status: number, body: string): string | null {
    if (status !== 200) return null;
    const r = request as AuthorizeSpec | BindSpec;
    if (r.kind === 'authorize') {
      const b = JSON.parse(body) as { trace_id: string; reasoning_hash: string };
      this.authorized.set(r.clientOrderId, { spec: r, traceId: b.trace_id, reasoningHash: b.reasoning_hash });
      return b.trace_id;
    }
    if (r.kind === 'bind') this.bound.set(r.traceId, { exchangeTxId: r.exchangeTxId, finalProof: (JSON.parse(body) as { final_proof: string }).final_proof });
    return null;
  }

  /** What the store lacks of what was acknowledged (empty when nothing is lost). */
  async missing(sql: Sql): Promise<string[]> {
    const rows = await sql<
      Array<{ trace_id: string; client_order_id: string; reasoning_hash: string; exchange_tx_id: string | null; final_proof: string | null }>
    >`
      select trace_id, client_order_id, reasoning_hash, exchange_tx_id, final_proof from traces`;
    const byId = new Map(rows.map((r) => [r.trace_id, r]));
    const lost: string[] = [];
    for (const [clientOrderId, a] of this.authorized) {
      const row = byId.get(a.traceId);
      if (!row || row.client_order_id !== clientOrderId || row.reasoning_hash !== a.reasoningHash)
        lost.push(`trace ${a.traceId} (client_order_id ${clientOrderId})`);
    }
    for (const [traceId, b] of this.bound) {
      const row = byId.get(traceId);
      if (!row || row.exchange_tx_id !== b.exchangeTxId || row.final_proof !== b.finalProof) lost.push(`bind of ${traceId} (exchange_tx_id ${b.exchangeTxId})`);
    }
    return lost;
  }
}
