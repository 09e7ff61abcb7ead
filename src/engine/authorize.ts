/**
 * Authorize: the engine's pre-trade gate. In order:
 * 1. scope: a client token bound to agents acts for those only;
 * 2. idempotency: a retry of the same order returns the original response; other fields → 409;
 * 3. registry: the agent is Active and not erased, and the model version approved (never bypassed, shadow
 *    mode or not);
 * 4. Layer 2: the heartbeat's signature, age, regime and mta_ref, and not already spent;
 * 5. clock: an agent_valid_time later than the engine's clock beyond the replay window is refused;
 * 6. policy: the regime's rules, the order's shape and size, the per-agent message rate, and (for an agent
 *    with `max_open_notional`) its open exposure, judged under a lock on the agent's row in the transaction
 *    that seals, so concurrent orders cannot both take the last room under the cap (the agent's orders that
 *    arrive together share that transaction, each judged after the ones before it: ./store/exposure-seal.ts);
 * 7. seal and commit the trace in one statement that first counts the order against the message rate (over
 *    it: nothing else written, 403) and spends the heartbeat's sequence (atomic, once per agent: a replay
 *    writes nothing and answers 403); answer 200 only after the commit.
 * With shadow mode on, a policy violation (step 6) does not stop the order: the trace is SHADOW_HALTED.
 * A retry of an order that was authorized gets the original answer whatever heartbeat it carries: a spent
 * heartbeat is refused only when no order with this client_order_id was sealed.
 *
 * Steps 2 and 3 read the store; for an agent this process has read before (Active, its model approved, no
 * open-exposure cap) the order takes a short path without that read: judged by the facts read before and
 * sealed by a statement that first checks them, and a retry found there by its idempotency record. An order
 * the short path would refuse, or whose facts changed, is decided again on the full path, so every answer is
 * the one the full path gives.
 */
import { hashJson, sha256Hex } from '../core/crypto/hash.js';
import type { authorizeBody } from './authorize-schemas.js';
import { canonicalWriter } from '../core/crypto/jcs-shape.js';
import { conflict, forbidden, TradesealError, validationError } from '../core/errors.js';
import type { Sql } from 'postgres';
import type { TokenRecord } from './store/tokens.js';
import type { KnownAgent } from './agent-cache.js';
import { mayActFor } from './auth.js';
import type { EngineContext } from './context.js';
import { type DenialCode, type Verdict } from './denials.js';
import { checkHeartbeat, heartbeatSignatureValid, type SignedHeartbeat } from './heartbeat/check.js';
import { checkOrderRate, evaluatePolicy, type OrderFacts } from './policy/evaluate.js';
import { checkValidTime } from './policy/exposure.js';
import { approvedModelId, type AgentForAuthorize } from './store/agents.js';
import { regulatoryKeyFor } from './ops/trace-personal.js';
import { findIdempotent, type AuthorizeResponse } from './store/idempotency.js';
import { orderSecond } from './store/rate-and-marks.js';
import { plainOutcome, type InsertOutcome, type SealGuard, type SealRate } from './store/traces.js';
import { buildTrace, type TraceFacts } from './trace/build.js';
import type { RegulatoryBlock } from './trace/seal.js';
import type { OrderType, TradeAction } from '../core/vocabulary.js';

export type TaggedAction = TradeAction | { Long: number } | { Short: number };

export interface AuthorizeRequest {
  agent_id: string;
  model_hash_hex: string;
  model_id: string;
  prompt_version: string;
  feature_schema_id: string;
  hyperparameter_checksum: string;
  action: TaggedAction;
  asset: string;
  order_type: OrderType;
  venue_id: string;
  quantity: number;
  notional: number;
  client_order_id: string;
  agent_valid_time: number;
  limit_price?: number | null;
  stop_price?: number | null;
  multiplier?: number;
  notional_currency?: string;
  reduce_only?: boolean;
  heartbeat?: SignedHeartbeat | null;
  regulatory?: RegulatoryBlock | null;
}

const replayed = (sequenceId: number, agentId: string): TradesealError =>
  forbidden('heartbeat_replayed', `heartbeat sequence_id ${sequenceId} was already used or is not greater than the last one accepted from agent ${agentId}`);

/** A 403 whose `code` names the rule and whose `detail` carries the numbers. */
const denied = (code: DenialCode, detail: string): TradesealError => forbidden(code, detail);

/** The plain action; the externally tagged `{"Long": q}` form is accepted when q equals quantity. */
export function plainAction(action: TaggedAction, quantity: number): TradeAction {
  if (typeof action === 'string') return action;
  const [side, q] = Object.entries(action)[0] as [TradeAction, number];
  if (q !== quantity) throw validationError([{ field: `action.${side}`, message: `must equal quantity (${quantity}), got ${q}` }]);
  return side;
}

/**
 * Every member of an authorize request, in its schema's order: the one list that the route's schema
 * (routes/authorize-bind.ts), the idempotency key's order and its canonical writer follow. The compiler holds
 * the three to it: the schema's properties and the order must name each member once and nothing else.
 */
export const AUTHORIZE_MEMBERS = [
  'agent_id',
  'model_hash_hex',
  'model_id',
  'prompt_version',
  'feature_schema_id',
  'hyperparameter_checksum',
  'action',
  'asset',
  'order_type',
  'venue_id',
  'quantity',
  'notional',
  'client_order_id',
  'agent_valid_time',
  'limit_price',
  'stop_price',
  'multiplier',
  'notional_currency',
  'reduce_only',
  'heartbeat',
  'regulatory',
] as const satisfies readonly (keyof AuthorizeRequest)[];
export type AuthorizeMember = (typeof AUTHORIZE_MEMBERS)[number];
/** A member of AuthorizeRequest missing from AUTHORIZE_MEMBERS fails to compile here. */
const everyMemberListed: Exclude<keyof AuthorizeRequest, AuthorizeMember> extends never ? true : never = true;
void everyMemberListed;
/** The request's schema (./authorize-schemas.ts) names each member once and nothing else. */
type SchemaMember = keyof typeof authorizeBody.properties;
const schemaNamesEveryMember: Exclude<SchemaMember, AuthorizeMember> | Exclude<AuthorizeMember, SchemaMember> extends never ? true : never = true;
void schemaNamesEveryMember;

const REQUEST_MEMBERS: ReadonlySet<string> = new Set(AUTHORIZE_MEMBERS);
const ORDER_MEMBERS = AUTHORIZE_MEMBERS.filter((m) => m !== 'heartbeat');
const orderText = canonicalWriter(Object.fromEntries(ORDER_MEMBERS.map((m) => [m, null])));

/** The idempotency key's order fields: everything but the heartbeat (a retry carries a fresh one). */
export function orderHash(req: AuthorizeRequest, action: TradeAction): string {
  const order = {
    agent_id: req.agent_id,
    model_hash_hex: req.model_hash_hex,
    model_id: req.model_id,
    prompt_version: req.prompt_version,
    feature_schema_id: req.feature_schema_id,
    hyperparameter_checksum: req.hyperparameter_checksum,
    action,
    asset: req.asset,
    order_type: req.order_type,
    venue_id: req.venue_id,
    quantity: req.quantity,
    notional: req.notional,
    client_order_id: req.client_order_id,
    agent_valid_time: req.agent_valid_time,
    limit_price: req.limit_price ?? null,
    stop_price: req.stop_price ?? null,
    multiplier: req.multiplier ?? 1,
    notional_currency: req.notional_currency ?? 'USD',
    reduce_only: req.reduce_only ?? false,
    regulatory: req.regulatory ?? null,
  } satisfies Record<Exclude<AuthorizeMember, 'heartbeat'>, unknown>;
  // A request with a member its schema does not name (only from a caller that did not validate it) keeps it in the key.
  for (const member in req) {
    if (!REQUEST_MEMBERS.has(member)) {
      const { heartbeat: _hb, ...rest } = req;
      return hashJson({ ...rest, ...order });
    }
  }
  return sha256Hex(orderText(order));
}

/** An order under way: what authorize derives from the request before it reads anything. */
interface Pending {
  req: AuthorizeRequest;
  action: TradeAction;
  hash: string;
  hb: SignedHeartbeat | null;
  /** The heartbeat's signature, verified on the thread pool meanwhile (never rejects). */
  signatureCheck: Promise<boolean>;
}

/** An order judged by the policy: the verdict of every rule but the throttle and the open-exposure cap. */
interface Judged {
  verdict: Verdict;
  /** The message throttle the order is counted against (null: off, or the order already refused). */
  rate: SealRate | null;
  shadow: boolean;
  trace: Omit<TraceFacts, 'regulatoryKey'>;
}

export interface AuthorizeOptions {
  /**
   * Hash-only model approval (the IRL Engine's rule, for `/irl/authorize`): an order whose (model_id,
   * model_hash_hex) pair is not approved but whose hash is, under another model id, is judged and sealed with
   * that model id (the trace holds the pair the engine approved); a hash approved under none is refused as on
   * `/engine`. The model id comes from what this process read before when it knows the agent and that model,
   * like the rest of the short path (no read), else from one read first.
   */
  modelByHash?: boolean;
}

export async function authorize(
  ctx: EngineContext,
  principal: TokenRecord | undefined,
  req: AuthorizeRequest,
  options: AuthorizeOptions = {},
): Promise<AuthorizeResponse> {
  if (!mayActFor(principal, req.agent_id)) throw denied('agent_not_permitted', `this token may not act for agent ${req.agent_id}`);
  const action = plainAction(req.action, req.quantity);
  if (options.modelByHash) {
    const cached = ctx.agents.approvedModel(req.agent_id, req.model_id, req.model_hash_hex);
    if (cached !== null) {
      const answer = await authorizeIfKnown(ctx, pending(ctx, withModel(req, cached), action));
      if (answer) return answer;
    }
    // Decided again from a fresh read, as an order of an agent this process does not know is.
    const approved = await approvedModelId(ctx.sql, req.agent_id, req.model_id, req.model_hash_hex);
    if (approved !== null) {
      ctx.agents.learnApprovedModel(req.agent_id, req.model_id, req.model_hash_hex, approved);
      return authorizeLookedUp(ctx, pending(ctx, withModel(req, approved), action));
    }
  }
  const o = pending(ctx, req, action);
  return (await authorizeIfKnown(ctx, o)) ?? authorizeLookedUp(ctx, o);
}

const withModel = (req: AuthorizeRequest, modelId: string): AuthorizeRequest => (modelId === req.model_id ? req : { ...req, model_id: modelId });

/** An order under way, before anything is read: its idempotency hash, and its heartbeat's signature checked meanwhile. */
function pending(ctx: EngineContext, req: AuthorizeRequest, action: TradeAction): Pending {
  const hb = req.heartbeat ?? null;
  return {
    req,
    action,
    hash: orderHash(req, action),
    hb,
    signatureCheck: hb ? heartbeatSignatureValid(hb, ctx.config.regimeOperatorPubkey) : Promise.resolve(false),
  };
}

/** The short path when this process knows the agent and the model; null: decide it with a read. */
async function authorizeIfKnown(ctx: EngineContext, o: Pending): Promise<AuthorizeResponse | null> {
  const known = ctx.agents.get(o.req.agent_id, o.req.model_id, o.req.model_hash_hex);
  return known ? authorizeKnown(ctx, o, known) : null;
}

/**
 * The short path, for an agent this process has read before (./agent-cache.ts): judged by what it read, sealed
 * by a statement that first checks those facts. Null when the order is to be decided again with a registry
 * read: the facts changed, or the order is refused (the read answers a retry of a sealed order first).
 */
async function authorizeKnown(ctx: EngineContext, o: Pending, known: KnownAgent): Promise<AuthorizeResponse | null> {
  let judged: Judged;
  let regulatoryKey: Buffer | null;
  try {
    const j = await judge(ctx, o, known, null);
    if (j === 'spent') return null;
    refuseUnlessShadow(j.verdict, j.shadow);
    regulatoryKey = await regulatoryKeyFor(ctx.sql, ctx.keys, o.req.agent_id, o.req.regulatory != null);
    judged = j;
  } catch (err) {
    if (err instanceof TradesealError) return null;
    throw err;
  }
  const answer = await sealAndSettle(ctx, o, judged, regulatoryKey, known);
  if (answer === 'stale') {
    ctx.agents.forget(o.req.agent_id, o.req.model_id, o.req.model_hash_hex);
    return null;
  }
  return answer;
}

/** The full path: the idempotency record, the registry and the heartbeat mark read first, then judged. */
async function authorizeLookedUp(ctx: EngineContext, o: Pending): Promise<AuthorizeResponse> {
  const { req } = o;
  const { prior, agent, lastSequence } = await ctx.batching.lookups.submit({
    agentId: req.agent_id,
    clientOrderId: req.client_order_id,
    modelId: req.model_id,
    modelHashHex: req.model_hash_hex,
  });
  ctx.agents.learn(req.agent_id, req.model_id, req.model_hash_hex, agent);
  if (prior) return replay(prior.order_hash, o.hash, prior.response as AuthorizeResponse, req.client_order_id);

  if (!agent || agent.status !== 'Active') {
    throw denied('agent_not_active', agent ? `agent ${req.agent_id} is ${agent.status}` : `agent ${req.agent_id} is not registered`);
  }
  if (agent.erased) throw denied('agent_not_active', `agent ${req.agent_id} was erased`);
  if (!agent.model_registered) {
    throw denied('model_not_registered', `model ${req.model_id} with hash ${req.model_hash_hex} is not approved for agent ${req.agent_id}`);
  }
  const j = await judge(ctx, o, agent, lastSequence);
  if (j === 'spent') return spentHeartbeat(ctx.sql, req, o.hash, o.hb?.sequence_id ?? 0);
  const cap = agent.max_open_notional;
  let verdict = j.verdict;
  // Under an open-exposure cap the order is counted by the throttle before the agent's lock is taken.
  if (j.rate && cap !== null)
    verdict = checkOrderRate(ctx.policy.document, await ctx.batching.orderCounts.submit({ agentId: req.agent_id, second: j.rate.second }));
  refuseUnlessShadow(verdict, j.shadow);
  // With a key-management provider the regulatory block is stored encrypted under the agent's data key (cached).
  const regulatoryKey = await regulatoryKeyFor(ctx.sql, ctx.keys, req.agent_id, req.regulatory != null);
  if (cap === null) {
    const answer = await sealAndSettle(ctx, o, j, regulatoryKey, null);
    if (answer === 'stale') throw new TradesealError('internal', 'a seal without a guard came to stale');
    return answer;
  }
  const facts: TraceFacts = { ...j.trace, regulatoryKey };
  // Judged by the cap under the agent's lock, with the orders of the agent submitted before it (./store/exposure-seal.ts).
  const capped = await ctx.batching.capped.submit({
    agentId: req.agent_id,
    clientOrderId: req.client_order_id,
    notional: req.notional,
    cap,
    heartbeatSequence: heartbeatSequence(ctx, o),
    verdict,
    shadow: j.shadow,
    build: (final) => buildTrace(facts, final),
  });
  if (capped.kind === 'refused') throw denied(capped.verdict.code, capped.verdict.detail);
  // A retry whose original committed first is answered as a retry, not counted twice.
  if (capped.kind === 'duplicate') return settle(ctx, o, 'duplicate', null);
  return settle(ctx, o, capped.outcome, capped.response);
}

/**
 * Judges an order against the clock, Layer 2 and the policy (all but the throttle and the open-exposure cap),
 * by the agent's facts; throws a refusal that shadow mode never lifts. `spent`: the heartbeat's sequence is
 * not above `lastSequence`, the last the store accepted (refused before the policy is judged; the sealing
 * statement re-checks atomically, as a concurrent request may spend it in between).
 */
async function judge(
  ctx: EngineContext,
  o: Pending,
  agent: Pick<AgentForAuthorize, 'max_notional' | 'allowed_regimes'>,
  lastSequence: number | null,
): Promise<Judged | 'spent'> {
  const { req, hb } = o;
  const cfg = ctx.config;
  const now = ctx.now();
  const regime = ctx.state.regime;
  const validTime = checkValidTime(req.agent_valid_time, now, cfg.heartbeatReplayWindowMs);
  if (!validTime.ok) throw denied(validTime.code, validTime.detail);
  if (cfg.layer2Enabled && !hb) throw validationError([{ field: 'heartbeat', message: 'is required (LAYER2_ENABLED)' }]);
  const signatureValid = await o.signatureCheck;
  if (hb && cfg.layer2Enabled) {
    const v = checkHeartbeat(hb, signatureValid, {
      now,
      replayWindowMs: cfg.heartbeatReplayWindowMs,
      requireMtaRef: cfg.heartbeatRequireMtaRef,
      regime: regime ? { regime_id: regime.regime_id, hash: regime.hash } : null,
    });
    if (!v.ok) throw denied(v.code, v.detail);
    if (lastSequence !== null && hb.sequence_id <= lastSequence) return 'spent';
  }
  const policy = ctx.policy.document;
  const order: OrderFacts = {
    action: o.action,
    asset: req.asset,
    order_type: req.order_type,
    venue_id: req.venue_id,
    quantity: req.quantity,
    notional: req.notional,
    notional_currency: req.notional_currency ?? 'USD',
    limit_price: req.limit_price ?? null,
    stop_price: req.stop_price ?? null,
    multiplier: req.multiplier ?? 1,
    reduce_only: req.reduce_only ?? false,
    agent_valid_time: req.agent_valid_time,
  };
  const verdict = evaluatePolicy({
    order,
    agent: { max_notional: agent.max_notional, allowed_regimes: agent.allowed_regimes },
    policy,
    now,
    regime: regime ? { regime: regime.regime, date: regime.date, effective_since_ms: regime.effective_since.getTime() } : null,
  });
  // The throttle counts only orders that pass every other rule.
  const rate = verdict.ok && policy.max_orders_per_second != null ? { max: policy.max_orders_per_second, second: orderSecond(now) } : null;
  return {
    verdict,
    rate,
    shadow: ctx.state.shadow.enabled,
    trace: {
      now,
      agentId: req.agent_id,
      modelId: req.model_id,
      promptVersion: req.prompt_version,
      featureSchemaId: req.feature_schema_id,
      hyperparameterChecksum: req.hyperparameter_checksum,
      clientOrderId: req.client_order_id,
      order,
      regime,
      policy: ctx.policy,
      heartbeat: hb,
      signatureValid,
      regulatory: req.regulatory ?? null,
      orderHash: o.hash,
    },
  };
}

/** A violation is a 403, unless shadow mode is on (then it is sealed SHADOW_HALTED). */
function refuseUnlessShadow(verdict: Verdict, shadow: boolean): void {
  if (!verdict.ok && !shadow) throw denied(verdict.code, verdict.detail);
}

const heartbeatSequence = (ctx: EngineContext, o: Pending): number | null => (o.hb && ctx.config.layer2Enabled ? o.hb.sequence_id : null);

/**
 * Seals a judged order through the batched statement, counted by the throttle there, and answers. Over the
 * throttle nothing was written and the heartbeat is unspent: a retry of a sealed order gets its answer, else a
 * 403, or under shadow mode the order is sealed as refused by the throttle, without being counted twice.
 * `stale`: the guard's facts changed, nothing written.
 */
async function sealAndSettle(
  ctx: EngineContext,
  o: Pending,
  j: Judged,
  regulatoryKey: Buffer | null,
  guard: SealGuard | null,
): Promise<AuthorizeResponse | 'stale'> {
  const facts: TraceFacts = { ...j.trace, regulatoryKey };
  const built = buildTrace(facts, j.verdict);
  const sequence = heartbeatSequence(ctx, o);
  const sealed = await ctx.batching.seals.submit({ trace: built.row, heartbeatSequence: sequence, rate: j.rate, guard });
  if (sealed === 'stale') return 'stale';
  if (sealed === 'inserted') ctx.sealed.remember(built.row);
  if (typeof sealed === 'string') return settle(ctx, o, sealed, built.response);
  // A retry of an order the statement found sealed: its original answer, or a conflict.
  if (sealed.kind === 'duplicate') return replay(sealed.order_hash, o.hash, sealed.response, o.req.client_order_id);
  const winner = await findIdempotent(ctx.sql, o.req.agent_id, o.req.client_order_id);
  if (winner) return replay(winner.order_hash, o.hash, winner.response, o.req.client_order_id);
  const over = checkOrderRate(ctx.policy.document, sealed.orders);
  if (over.ok) throw new TradesealError('internal', `the throttle refused the ${sealed.orders}th order, within its limit`);
  refuseUnlessShadow(over, j.shadow);
  const refused = buildTrace(facts, over);
  const again = plainOutcome(await ctx.batching.seals.submit({ trace: refused.row, heartbeatSequence: sequence, rate: null, guard: null }));
  if (again === 'inserted') ctx.sealed.remember(refused.row);
  return settle(ctx, o, again, refused.response);
}

/** The answer for a seal's outcome: the sealed order's, or as a spent heartbeat or a concurrent retry would be. */
async function settle(ctx: EngineContext, o: Pending, outcome: InsertOutcome, response: AuthorizeResponse | null): Promise<AuthorizeResponse> {
  if (outcome === 'replayed') return spentHeartbeat(ctx.sql, o.req, o.hash, o.hb?.sequence_id ?? 0);
  if (outcome === 'duplicate') {
    // A concurrent request with the same client_order_id committed first: answer as its retry would be.
    const winner = await findIdempotent(ctx.sql, o.req.agent_id, o.req.client_order_id);
    if (!winner) throw new TradesealError('internal', 'idempotency record vanished');
    return replay(winner.order_hash, o.hash, winner.response, o.req.client_order_id);
  }
  if (!response) throw new TradesealError('internal', 'an inserted trace has no response');
  return response;
}

/**
 * A heartbeat already spent: refused, unless an order with this client_order_id was sealed meanwhile (a
 * concurrent retry carrying the same heartbeat won the race), in which case this is its retry.
 */
async function spentHeartbeat(sql: Sql, req: AuthorizeRequest, hash: string, sequenceId: number): Promise<AuthorizeResponse> {
  const winner = await findIdempotent(sql, req.agent_id, req.client_order_id);
  if (winner) return replay(winner.order_hash, hash, winner.response, req.client_order_id);
  throw replayed(sequenceId, req.agent_id);
}

function replay(storedHash: string, hash: string, response: AuthorizeResponse, clientOrderId: string): AuthorizeResponse {
  if (storedHash !== hash) {
    throw conflict('client_order_id_conflict', `client_order_id ${clientOrderId} was already used by this agent for a different order`);
  }
  return response;
}
