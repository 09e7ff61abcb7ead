/**
 * The demo's simulated agents, each through heartbeat → authorize → simulated exchange fill → bind over real
 * HTTP, one case per thing a compliance officer must be able to see: a clean fill (MATCHED), a partial fill
 * (DIVERGENT, with its reason), a fill on the other side (MISMATCH), a refusal (403, in the audit log), a
 * replayed heartbeat (403), an idempotent retry (the same trace), an order shadow mode let through
 * (SHADOW_HALTED), an order never filled (EXPIRED by the sweeper), and an exchange execution nobody authorized
 * (ORPHAN, reported by the exchange's FIX drop copy and reconciled as it arrives).
 */
import { randomUUID } from 'node:crypto';
import type { DropCopyExecution } from '../engine/reconcile/schema.js';
import { expectStatus, type Call } from './client.js';

export const DEMO_MODEL = { model_id: 'demo-momentum', model_hash_hex: 'd'.repeat(64) };

export interface DemoCase {
  case: string;
  agent: string;
  /** What the engine answered: `200`, or the status and refusal code. */
  answer: string;
  trace_id: string | null;
  /** The trace's listing status at the end, or what the case shows instead. */
  status: string;
  detail: string;
}

export interface DemoAgent {
  name: string;
  agent_id: string;
  token: string;
}

export interface ScenarioHooks {
  /** Turns authorized, never-bound traces older than the demo's expiry into EXPIRED (the sweeper's work). */
  sweep: () => Promise<number>;
  expiryMs: number;
  say: (line: string) => void;
  /** Has the exchange report `execution` over the FIX drop copy; resolves with how the engine reconciled it (null: not within the demo's wait). */
  dropCopy: (execution: DropCopyExecution) => Promise<{ trace_id: string; outcome: string } | null>;
}

export async function registerAgents(call: Call, owner: string): Promise<Record<string, DemoAgent>> {
  const auth = { authorization: `Bearer ${owner}` };
  const agents: Record<string, DemoAgent> = {};
  for (const [name, maxNotional] of [
    ['alpha', 250_000],
    ['beta', 250_000],
    ['gamma', 250_000],
    ['delta', 50_000],
    ['epsilon', 250_000],
  ] as const) {
    const agent = expectStatus(
      await call('POST', '/engine/admin/agents', { name: `demo-${name}`, max_notional: maxNotional, models: [DEMO_MODEL] }, auth),
      201,
      `register ${name}`,
    );
    const token = expectStatus(
      await call('POST', '/engine/admin/tokens', { client_name: `demo-${name}`, agent_ids: [agent.agent_id] }, auth),
      200,
      `token for ${name}`,
    );
    agents[name] = { name, agent_id: agent.agent_id, token: token.token };
  }
  return agents;
}

export async function runScenario(call: Call, owner: string, signalsKey: string, agents: Record<string, DemoAgent>, hooks: ScenarioHooks): Promise<DemoCase[]> {
  const ownerAuth = { authorization: `Bearer ${owner}` };
  const heartbeat = async () => expectStatus(await call('GET', '/v1/engine/heartbeat', undefined, { 'x-signals-key': signalsKey }), 200, 'heartbeat');
  const order = (a: DemoAgent, o: { asset: string; side: 'Long' | 'Short'; quantity: number; price: number }, hb: unknown, clientOrderId = randomUUID()) => ({
    agent_id: a.agent_id,
    ...DEMO_MODEL,
    prompt_version: 'v12',
    feature_schema_id: 'macro-v3',
    hyperparameter_checksum: 'c0ffee',
    action: o.side,
    asset: o.asset,
    order_type: 'Limit',
    venue_id: 'XNAS',
    quantity: o.quantity,
    limit_price: o.price,
    notional: o.quantity * o.price,
    client_order_id: clientOrderId,
    agent_valid_time: Date.now(),
    heartbeat: hb,
  });
  const authorize = (a: DemoAgent, body: unknown) => call('POST', '/engine/authorize', body, { authorization: `Bearer ${a.token}` });
  const bind = async (a: DemoAgent, traceId: string, fill: { asset: string; side: string; quantity: number; price: number }) =>
    expectStatus(
      await call(
        'POST',
        '/engine/bind-execution',
        {
          trace_id: traceId,
          exchange_tx_id: `XNAS-DEMO-${randomUUID().slice(0, 8)}`,
          execution_status: 'Filled',
          asset: fill.asset,
          executed_quantity: fill.quantity,
          executed_side: fill.side,
          execution_price: fill.price,
        },
        { authorization: `Bearer ${a.token}` },
      ),
      200,
      `bind ${traceId}`,
    );
  const statusOf = async (traceId: string) => expectStatus(await call('GET', `/engine/trace/${traceId}`, undefined, ownerAuth), 200, `trace ${traceId}`);
  const refusal = (r: { status: number; body: Record<string, any> }) => `${r.status} ${r.body.code ?? ''}`.trim();
  const cases: DemoCase[] = [];
  const { alpha, beta, gamma, delta, epsilon } = agents as Record<'alpha' | 'beta' | 'gamma' | 'delta' | 'epsilon', DemoAgent>;

  hooks.say('alpha buys 100 AAPL at 190 and is filled in full');
  const hbAlpha = await heartbeat();
  const alphaOrder = order(alpha, { asset: 'AAPL', side: 'Long', quantity: 100, price: 190 }, hbAlpha);
  const matched = expectStatus(await authorize(alpha, alphaOrder), 200, 'alpha authorize');
  const alphaBound = await bind(alpha, matched.trace_id, { asset: 'AAPL', side: 'Long', quantity: 100, price: 189.98 });
  cases.push({
    case: 'filled as authorized',
    agent: 'alpha',
    answer: '200',
    trace_id: matched.trace_id,
    status: (await statusOf(matched.trace_id)).integrity.status,
    detail: `final_proof ${String(alphaBound.final_proof).slice(0, 12)}…`,
  });

  hooks.say('alpha retries the same order (same client_order_id) with a fresh heartbeat');
  const retry = expectStatus(await authorize(alpha, { ...alphaOrder, heartbeat: await heartbeat() }), 200, 'alpha retry');
  cases.push({
    case: 'idempotent retry',
    agent: 'alpha',
    answer: '200',
    trace_id: retry.trace_id,
    status: retry.trace_id === matched.trace_id ? 'the same trace' : 'A NEW TRACE',
    detail: 'the original answer, nothing sealed twice',
  });

  hooks.say('alpha replays its first heartbeat on a new order');
  const replayed = await authorize(alpha, order(alpha, { asset: 'AAPL', side: 'Long', quantity: 10, price: 190 }, hbAlpha));
  cases.push({
    case: 'replayed heartbeat',
    agent: 'alpha',
    answer: refusal(replayed),
    trace_id: null,
    status: 'refused',
    detail: 'its heartbeat was spent by the first order',
  });

  hooks.say('beta buys 200 MSFT at 410 and is filled for 150');
  const partial = expectStatus(
    await authorize(beta, order(beta, { asset: 'MSFT', side: 'Long', quantity: 200, price: 410 }, await heartbeat())),
    200,
    'beta authorize',
  );
  const betaBound = await bind(beta, partial.trace_id, { asset: 'MSFT', side: 'Long', quantity: 150, price: 410.2 });
  cases.push({
    case: 'partial fill',
    agent: 'beta',
    answer: '200',
    trace_id: partial.trace_id,
    status: (await statusOf(partial.trace_id)).integrity.status,
    detail: String(betaBound.divergence_reason ?? ''),
  });

  hooks.say('gamma buys 50 NVDA at 120; the exchange reports a sale');
  const wrongSide = expectStatus(
    await authorize(gamma, order(gamma, { asset: 'NVDA', side: 'Long', quantity: 50, price: 120 }, await heartbeat())),
    200,
    'gamma authorize',
  );
  const gammaBound = await bind(gamma, wrongSide.trace_id, { asset: 'NVDA', side: 'Short', quantity: 50, price: 120 });
  cases.push({
    case: 'filled on the other side',
    agent: 'gamma',
    answer: '200',
    trace_id: wrongSide.trace_id,
    status: (await statusOf(wrongSide.trace_id)).integrity.status,
    detail: String(gammaBound.divergence_reason ?? ''),
  });

  hooks.say('delta (capped at 50,000) asks for 100,000 of SPY');
  const big = { asset: 'SPY', side: 'Long' as const, quantity: 200, price: 500 };
  const refused = await authorize(delta, order(delta, big, await heartbeat()));
  cases.push({
    case: "over the agent's cap",
    agent: 'delta',
    answer: refusal(refused),
    trace_id: null,
    status: 'refused',
    detail: 'recorded in the audit log (authorize.reject)',
  });

  hooks.say("shadow mode on: delta's same order passes, marked; shadow mode off");
  expectStatus(await call('POST', '/engine/admin/shadow-mode', { enabled: true, reason: 'demo: policy dry run' }, ownerAuth), 200, 'shadow on');
  const shadowed = expectStatus(await authorize(delta, order(delta, big, await heartbeat())), 200, 'delta in shadow mode');
  expectStatus(await call('POST', '/engine/admin/shadow-mode', { enabled: false }, ownerAuth), 200, 'shadow off');
  cases.push({
    case: 'let through by shadow mode',
    agent: 'delta',
    answer: `200 shadow_blocked=${shadowed.shadow_blocked}`,
    trace_id: shadowed.trace_id,
    status: (await statusOf(shadowed.trace_id)).integrity.status,
    detail: 'the policy would have stopped it',
  });

  hooks.say(`epsilon buys 30 AMZN at 180 and is never filled (the demo's expiry: ${hooks.expiryMs / 1000} s)`);
  const unfilled = expectStatus(
    await authorize(epsilon, order(epsilon, { asset: 'AMZN', side: 'Long', quantity: 30, price: 180 }, await heartbeat())),
    200,
    'epsilon authorize',
  );
  await new Promise((r) => setTimeout(r, hooks.expiryMs + 200));
  await hooks.sweep();
  cases.push({
    case: 'never filled',
    agent: 'epsilon',
    answer: '200',
    trace_id: unfilled.trace_id,
    status: (await statusOf(unfilled.trace_id)).integrity.status,
    detail: 'expired by the sweeper',
  });

  hooks.say("the exchange's FIX drop copy reports an execution of gamma that nobody authorized");
  const execution = {
    exchange_tx_id: `XNAS-DEMO-ORPHAN-${randomUUID().slice(0, 8)}`,
    asset: 'TSLA',
    side: 'Long' as const,
    quantity: 40,
    price: 250,
    agent_id: gamma.agent_id,
    execution_time: new Date().toISOString(),
  };
  const orphan = await hooks.dropCopy(execution);
  cases.push({
    case: 'executed, never authorized',
    agent: 'gamma',
    answer: 'FIX 35=8',
    trace_id: orphan?.trace_id ?? null,
    status: orphan ? (await statusOf(orphan.trace_id)).integrity.status : 'none',
    detail: orphan ? `${orphan.outcome} from the FIX drop copy` : 'not reconciled',
  });
  return cases;
}
