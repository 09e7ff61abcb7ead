/**
 * The engine's enumerations, as decided in docs/decisions/0004-engine-enumerations.md (chosen so that
 * clients written for existing engines of this interface keep working), and the regime names and ids shared
 * with the signal service.
 */

export const TRADE_ACTIONS = ['Long', 'Short', 'Neutral'] as const;
export type TradeAction = (typeof TRADE_ACTIONS)[number];

export const ORDER_TYPES = ['Market', 'Limit', 'Stop', 'StopLimit', 'Twap', 'Vwap'] as const;
export type OrderType = (typeof ORDER_TYPES)[number];

export const EXECUTION_STATUSES = ['Filled', 'Partial', 'Rejected', 'Cancelled'] as const;
export type ExecutionStatus = (typeof EXECUTION_STATUSES)[number];

/** VerificationStatus, capitalised as the interface writes it. */
export const VERIFICATION_STATUSES = ['Pending', 'Matched', 'Divergent', 'Orphan', 'Expired', 'Mismatch'] as const;
export type VerificationStatus = (typeof VERIFICATION_STATUSES)[number];

/** The upper-case listing statuses of trace listings and the `status` filter. */
export const TRACE_STATUSES = ['PENDING', 'MATCHED', 'DIVERGENT', 'ORPHAN', 'EXPIRED', 'MISMATCH', 'SHADOW_HALTED'] as const;
export type TraceStatus = (typeof TRACE_STATUSES)[number];

export const REGIMES = ['expansion', 'recovery', 'tightening', 'risk_off'] as const;
export type Regime = (typeof REGIMES)[number];

/** Wire ids of the regimes (heartbeat `regime_id`, trace `mta.regime_id`). */
export const REGIME_IDS: Readonly<Record<Regime, number>> = Object.freeze({ expansion: 0, recovery: 1, tightening: 2, risk_off: 3 });

export const regimeById = (id: number): Regime | undefined => REGIMES[id];

/** A regime as an operator may name it: its name, or its wire id 0..3 (docs/decisions/0004-engine-enumerations.md). */
export type RegimeRef = Regime | number;

/** The name of a regime named by name or id; ids outside 0..3 are refused by the schemas before this. */
export const regimeName = (ref: RegimeRef): Regime => (typeof ref === 'number' ? (REGIMES[ref] as Regime) : ref);

export const REGIME_LABELS: Readonly<Record<Regime, string>> = Object.freeze({
  expansion: 'Expansion',
  recovery: 'Recovery',
  tightening: 'Tightening',
  risk_off: 'Risk-off',
});
