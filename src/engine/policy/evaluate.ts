/**
 * Pre-trade policy evaluation: a pure function of the order, the agent, the regime in force, the policy
 * and the clock. Returns the first rule breached as data, with the numbers in its detail, e.g.
 * `notional 120000 USD exceeds cap 50000 (base 200000 × risk_off scale 0.25)`.
 *
 * Rules run fail-closed first (no regime, or one whose data are older than the maximum age, denies everything), then the regime's own
 * constraints, then the order's shape, then the size limits. The per-agent message rate needs shared
 * state and is checked by the caller with `checkOrderRate`.
 */
import { deny, PASS, type Verdict } from '../denials.js';
import type { OrderType, Regime, TradeAction } from '../../core/vocabulary.js';
import { freshnessOf } from './freshness.js';
import type { PolicyDocument } from './policy.js';

export interface OrderFacts {
  action: TradeAction;
  asset: string;
  order_type: OrderType;
  venue_id: string;
  quantity: number;
  notional: number;
  notional_currency: string;
  limit_price: number | null;
  stop_price: number | null;
  multiplier: number;
  reduce_only: boolean;
  agent_valid_time: number;
}

export interface AgentFacts {
  max_notional: number;
  allowed_regimes: Regime[] | null;
}

export interface RegimeFacts {
  regime: Regime;
  /** The day the broadcast's data describe (`YYYY-MM-DD`): its age counts from the end of that day (see freshness.ts). */
  date: string;
  /** When this regime content took effect (Unix ms); the agent_valid_time lag is measured from it. */
  effective_since_ms: number;
}

export interface EvaluationInput {
  order: OrderFacts;
  agent: AgentFacts;
  regime: RegimeFacts | null;
  policy: PolicyDocument;
  now: number;
}

const fmt = (n: number): string => (Number.isInteger(n) ? String(n) : String(Number(n.toPrecision(12))));

/** The notional cap in force for an order: min(agent cap, currency cap) × regime scale, or null if the currency is unlisted. */
export function notionalCap(agentMax: number, policy: PolicyDocument, currency: string, regime: Regime): { base: number; scale: number; cap: number } | null {
  // Own properties only: an inherited name ("constructor") would make the cap NaN, and every order pass.
  const currencyCap = Object.hasOwn(policy.currency_caps, currency) ? policy.currency_caps[currency] : undefined;
  if (currencyCap === undefined) return null;
  const base = Math.min(agentMax, currencyCap);
  const scale = policy.regimes[regime].max_notional_scale;
  return { base, scale, cap: base * scale };
}

/** The price an order's notional is checked against: the limit price where given, else the stop price. */
export const referencePrice = (o: Pick<OrderFacts, 'limit_price' | 'stop_price'>): number | null => o.limit_price ?? o.stop_price ?? null;

export function evaluatePolicy({ order, agent, regime, policy, now }: EvaluationInput): Verdict {
  if (!regime) return deny('regime_stale', 'no regime is published; the engine fails closed');
  const fresh = freshnessOf(regime.date, policy.regime_max_age_ms, now);
  if (fresh.stale) {
    return deny(
      'regime_stale',
      `the regime's data (${regime.date}, complete at ${fresh.data_complete_at}) are ${fmt(fresh.age_ms)} ms old, beyond the maximum age ${fmt(policy.regime_max_age_ms)} ms`,
    );
  }
  const lag = regime.effective_since_ms - order.agent_valid_time;
  if (lag > policy.agent_valid_time_max_lag_ms) {
    return deny('agent_valid_time_lag', `agent_valid_time is ${fmt(lag)} ms behind the current regime (maximum ${fmt(policy.agent_valid_time_max_lag_ms)} ms)`);
  }

  const rule = policy.regimes[regime.regime];
  if (!order.reduce_only) {
    if (agent.allowed_regimes && !agent.allowed_regimes.includes(regime.regime)) {
      return deny('regime_not_allowed', `regime ${regime.regime} is not among the agent's allowed regimes [${agent.allowed_regimes.join(', ')}]`);
    }
    if (!rule.allowed_sides.includes(order.action)) {
      return deny(
        'side_not_allowed',
        `${order.action} is not allowed in regime ${regime.regime} (allowed: [${rule.allowed_sides.join(', ')}]; reduce_only orders pass)`,
      );
    }
  }

  if (policy.allowed_order_types && !policy.allowed_order_types.includes(order.order_type)) {
    return deny('order_type_not_allowed', `order type ${order.order_type} is not allowed (allowed: [${policy.allowed_order_types.join(', ')}])`);
  }
  if (policy.allowed_venues && !policy.allowed_venues.includes(order.venue_id)) {
    return deny('venue_not_allowed', `venue ${order.venue_id} is not allowed (allowed: [${policy.allowed_venues.join(', ')}])`);
  }

  const price = referencePrice(order);
  if (price !== null) {
    const implied = order.quantity * price * order.multiplier;
    if (!(implied > 0) || !Number.isFinite(implied)) {
      return deny(
        'notional_inconsistent',
        `quantity ${fmt(order.quantity)} × price ${fmt(price)} × multiplier ${fmt(order.multiplier)} is not a representable positive notional`,
      );
    }
    const relative = Math.abs(order.notional - implied) / implied;
    if (relative > policy.notional_tolerance) {
      return deny(
        'notional_inconsistent',
        `notional ${fmt(order.notional)} differs from quantity ${fmt(order.quantity)} × price ${fmt(price)} × multiplier ${fmt(order.multiplier)} = ${fmt(implied)} by ${fmt(relative * 100)}% (tolerance ${fmt(policy.notional_tolerance * 100)}%)`,
      );
    }
  }

  const cap = notionalCap(agent.max_notional, policy, order.notional_currency, regime.regime);
  if (!cap) {
    return deny(
      'currency_not_allowed',
      `notional currency ${order.notional_currency} has no cap in policy ${policy.id} (capped: [${Object.keys(policy.currency_caps).join(', ')}])`,
    );
  }
  if (order.notional > cap.cap) {
    return deny(
      'notional_cap_exceeded',
      `notional ${fmt(order.notional)} ${order.notional_currency} exceeds cap ${fmt(cap.cap)} (base ${fmt(cap.base)} × ${regime.regime} scale ${fmt(cap.scale)})`,
    );
  }
  const assetCap = policy.asset_caps && Object.hasOwn(policy.asset_caps, order.asset) ? policy.asset_caps[order.asset] : undefined;
  if (assetCap !== undefined && order.notional > assetCap) {
    return deny('asset_cap_exceeded', `notional ${fmt(order.notional)} ${order.notional_currency} exceeds the ${order.asset} cap ${fmt(assetCap)}`);
  }
  if (policy.max_quantity != null && order.quantity > policy.max_quantity) {
    return deny('quantity_cap_exceeded', `quantity ${fmt(order.quantity)} exceeds the maximum ${fmt(policy.max_quantity)}`);
  }
  return PASS;
}

/** The per-agent message throttle, given how many orders (this one included) the agent sent in the current second. */
export function checkOrderRate(policy: PolicyDocument, ordersThisSecond: number): Verdict {
  const max = policy.max_orders_per_second;
  if (max == null || ordersThisSecond <= max) return PASS;
  return deny('order_rate_exceeded', `${ordersThisSecond} orders in the current second exceed the limit of ${max} per second`);
}
