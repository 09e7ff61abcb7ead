/**
 * The regime broadcast in the store: append-only, the newest row is in force. The pipeline publishes into
 * it after each run; an operator can publish a manual broadcast in an emergency (`tradeseal regime publish`).
 */
import type { Sql, TransactionSql } from 'postgres';
import { hashJson } from '../../crypto/hash.js';
import { REGIME_IDS, REGIMES, type Regime } from '../vocabulary.js';

export type Probabilities = Record<Regime, number>;

/** The fields the broadcast hash (`mta.hash`, a heartbeat's `mta_ref`) covers. */
export interface RegimeState {
  date: string;
  regime: Regime;
  regime_id: number;
  risk_score: number;
  probabilities: Probabilities;
  model_version: string;
}

export interface RegimeBroadcast extends RegimeState {
  id: number;
  source: 'pipeline' | 'manual';
  reason: string | null;
  published_by: string | null;
  published_at: Date;
  /** When this regime content (this hash) took effect: a repeat broadcast keeps the earlier time. */
  effective_since: Date;
  hash: string;
}

export interface PublishRegimeInput {
  date: string;
  regime: Regime;
  risk_score: number;
  probabilities?: Probabilities;
  model_version: string;
  source: 'pipeline' | 'manual';
  reason?: string | null;
  published_by?: string | null;
}

/** SHA-256 over the JCS of `{date, regime, regime_id, risk_score, probabilities, model_version}`. */
export const broadcastHash = (s: RegimeState): string =>
  hashJson({ date: s.date, regime: s.regime, regime_id: s.regime_id, risk_score: s.risk_score, probabilities: s.probabilities, model_version: s.model_version });

/** A manual broadcast states certainty: probability 1 on the named regime. */
export const certainProbabilities = (regime: Regime): Probabilities =>
  Object.fromEntries(REGIMES.map((r) => [r, r === regime ? 1 : 0])) as Probabilities;

type Row = Omit<RegimeBroadcast, 'date' | 'id'> & { date: Date | string; id: string | number };

const toBroadcast = (r: Row): RegimeBroadcast => ({
  ...r,
  id: Number(r.id),
  date: typeof r.date === 'string' ? r.date.slice(0, 10) : r.date.toISOString().slice(0, 10),
});

const COLUMNS = 'id, date::text as date, regime, regime_id, risk_score, probabilities, model_version, source, reason, published_by, published_at, effective_since, hash';

export async function currentRegime(sql: Sql | TransactionSql): Promise<RegimeBroadcast | null> {
  const rows = await sql.unsafe<Row[]>(`select ${COLUMNS} from regime_broadcasts order by id desc limit 1`);
  return rows[0] ? toBroadcast(rows[0]) : null;
}


export async function publishRegime(sql: Sql | TransactionSql, input: PublishRegimeInput): Promise<RegimeBroadcast> {
  const state: RegimeState = {
    date: input.date,
    regime: input.regime,
    regime_id: REGIME_IDS[input.regime],
    risk_score: input.risk_score,
    probabilities: input.probabilities ?? certainProbabilities(input.regime),
    model_version: input.model_version,
  };
  const hash = broadcastHash(state);
  const rows = await sql.unsafe<Row[]>(
    `insert into regime_broadcasts (date, regime, regime_id, risk_score, probabilities, model_version, source, reason, published_by, hash, effective_since)
     values ($1, $2, $3, $4, $5::jsonb, $6, $7, $8, $9, $10,
             coalesce((select effective_since from (select hash, effective_since from regime_broadcasts order by id desc limit 1) last
                       where last.hash = $10), clock_timestamp()))
     returning ${COLUMNS}`,
    [state.date, state.regime, state.regime_id, state.risk_score, state.probabilities, state.model_version,
      input.source, input.reason ?? null, input.published_by ?? null, hash],
  );
  return toBroadcast(rows[0] as Row);
}
