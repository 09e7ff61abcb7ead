/**
 * The regime broadcast in the store: append-only, the newest row is in force. The pipeline publishes into
 * it after each run; an operator can publish a manual broadcast in an emergency (`tradeseal regime publish`),
 * which holds until the operator releases it (`tradeseal regime release`) or publishes another: a pipeline run
 * never replaces it. Every change runs under one transaction-scoped advisory lock, so the check "is an
 * override in force?" and the insert cannot interleave with another change.
 *
 * The stream is shared by the two services, below both: the signal service's publishing appends the pipeline's
 * broadcasts, the engine appends an operator's and enforces the newest, and the signal service subscribes to it
 * for its webhooks (event_cursors). Releasing an override returns to the newest day the pipeline published, the
 * one read of the signal service's tables here (`signal_days`, `model_runs`).
 */
import type { Sql, TransactionSql } from 'postgres';
import { TradesealError } from '../core/errors.js';
import { ADVISORY_LOCKS } from './advisory-lock.js';
import { inTransaction as isTransaction, type SqlOrTx } from './transaction.js';
import { broadcastHash, certainProbabilities, type Probabilities, type RegimeBroadcast, type RegimeState } from '../core/records/regime-broadcast.js';
import { REGIME_IDS, type Regime } from '../core/vocabulary.js';

export { broadcastHash, certainProbabilities, type Probabilities, type RegimeBroadcast, type RegimeState };

export interface PublishRegimeInput {
  date: string;
  regime: Regime;
  risk_score: number;
  probabilities?: Probabilities;
  model_version: string;
  source: 'pipeline' | 'manual';
  reason?: string | null;
  published_by?: string | null;
  /** The day's publication instant (ISO-8601 UTC), for a pipeline broadcast. */
  available_at?: string | null;
  /**
   * When the broadcast is published (ms since the epoch); default the store's clock. A pipeline run on a clock of
   * its own (a replay on simulated time) publishes at its time, so engines on that clock see it in force.
   */
  published_at_ms?: number | null;
}

type Row = Omit<RegimeBroadcast, 'date' | 'id'> & { date: Date | string; id: string | number };

const toBroadcast = (r: Row): RegimeBroadcast => ({
  ...r,
  id: Number(r.id),
  date: typeof r.date === 'string' ? r.date.slice(0, 10) : r.date.toISOString().slice(0, 10),
});

const COLUMNS = `id, date::text as date, regime, regime_id, risk_score, probabilities, model_version, source, reason, published_by, published_at, effective_since, hash,
  to_char(available_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as available_at`;

export async function currentRegime(sql: Sql | TransactionSql): Promise<RegimeBroadcast | null> {
  const rows = await sql.unsafe<Row[]>(`select ${COLUMNS} from regime_broadcasts order by id desc limit 1`);
  return rows[0] ? toBroadcast(rows[0]) : null;
}

/** The broadcasts after `afterId`, oldest first, at most `limit`: what a subscriber to the stream reads. */
export async function broadcastsAfter(sql: Sql | TransactionSql, afterId: number, limit: number): Promise<RegimeBroadcast[]> {
  const rows = await sql.unsafe<Row[]>(`select ${COLUMNS} from regime_broadcasts where id > $1 order by id limit $2`, [afterId, limit]);
  return rows.map(toBroadcast);
}

/**
 * Inserts a broadcast as the newest row. Callers hold the broadcast lock in their transaction (see below), so
 * the check of what is in force and the insert are one step, and the stream's ids are in commit order: the signal
 * service reads the broadcasts after its cursor to queue its `regime_change` webhooks
 * (src/signals/webhooks/regime-change.ts), and never misses one.
 */
async function insertBroadcast(sql: Sql | TransactionSql, input: PublishRegimeInput): Promise<RegimeBroadcast> {
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
    // One reading of the clock: a broadcast that changes the content takes effect exactly when it is published.
    `with now as (select coalesce(to_timestamp($12::double precision / 1000), clock_timestamp()) as t)
     insert into regime_broadcasts (date, regime, regime_id, risk_score, probabilities, model_version, source, reason, published_by, hash, available_at, published_at, effective_since)
     select $1, $2, $3, $4, $5::jsonb, $6, $7, $8, $9, $10, $11::timestamptz, now.t,
            coalesce((select effective_since from (select hash, effective_since from regime_broadcasts order by id desc limit 1) last
                      where last.hash = $10), now.t)
     from now
     returning ${COLUMNS}`,
    [
      state.date,
      state.regime,
      state.regime_id,
      state.risk_score,
      state.probabilities,
      state.model_version,
      input.source,
      input.reason ?? null,
      input.published_by ?? null,
      hash,
      input.available_at ?? null,
      input.published_at_ms ?? null,
    ],
  );
  return toBroadcast(rows[0] as Row);
}

/**
 * Serialises every change of the broadcast in force (a transaction-scoped advisory lock), so that a pipeline
 * run that read "no override" cannot insert its broadcast after an operator's override committed.
 */
const lockBroadcasts = (tx: Sql | TransactionSql) => tx`select pg_advisory_xact_lock(${ADVISORY_LOCKS.regimeBroadcast})`;

/** Runs `fn` in a transaction holding the broadcast lock; `sql` may already be a transaction (then it is used as is). */
async function underBroadcastLock<T>(sql: Sql | TransactionSql, inTransaction: boolean, fn: (tx: Sql | TransactionSql) => Promise<T>): Promise<T> {
  if (inTransaction || isTransaction(sql)) {
    await lockBroadcasts(sql);
    return fn(sql);
  }
  return sql.begin(async (tx) => {
    await lockBroadcasts(tx);
    return fn(tx);
  }) as Promise<T>;
}

/**
 * An operator's broadcast (`source: manual`): in force at once, and it stays in force until the operator
 * publishes another or releases it (`releaseOverride`): pipeline runs go on publishing their history but do
 * not replace it.
 */
export async function publishManual(sql: SqlOrTx, input: Omit<PublishRegimeInput, 'source'>): Promise<RegimeBroadcast> {
  return underBroadcastLock(sql, false, (tx) => insertBroadcast(tx, { ...input, source: 'manual' }));
}

export interface PipelineBroadcast {
  /** The broadcast made, or null when an operator's override is in force (it is then `override`). */
  broadcast: RegimeBroadcast | null;
  override: RegimeBroadcast | null;
}

/** The pipeline's broadcast of its newest day, inside the run's publishing transaction, unless an override holds. */
export async function publishFromPipeline(tx: TransactionSql | Sql, input: Omit<PublishRegimeInput, 'source'>): Promise<PipelineBroadcast> {
  return underBroadcastLock(tx, true, async (t) => {
    const current = await currentRegime(t);
    if (current?.source === 'manual') return { broadcast: null, override: current };
    return { broadcast: await insertBroadcast(t, { ...input, source: 'pipeline' }), override: null };
  });
}

export interface Release {
  /** The operator's broadcast that was in force. */
  released: RegimeBroadcast;
  /** The broadcast in force now: the newest published day's regime, as the pipeline published it. */
  broadcast: RegimeBroadcast;
}

/**
 * Lifts the operator's override: the regime of the newest published day (the pipeline's signal package)
 * is broadcast again, with a reason that names the override released and who released it.
 */
export async function releaseOverride(sql: SqlOrTx, releasedBy: string, reason: string | null): Promise<Release> {
  return underBroadcastLock(sql, false, async (tx) => {
    const current = await currentRegime(tx);
    if (current?.source !== 'manual') {
      throw new TradesealError(
        'regime_override_not_in_force',
        current
          ? `the broadcast in force (#${current.id}, ${current.regime} on ${current.date}) comes from the pipeline, not from an operator`
          : 'no regime is published at all',
      );
    }
    const [day] = await tx<
      Array<{
        date: string;
        regime: Regime;
        risk_score: number;
        pe: number;
        pr: number;
        pt: number;
        po: number;
        model_version: string;
        available_at: Date | null;
      }>
    >`
      select s.date::text as date, s.regime, s.risk_score, s.prob_expansion as pe, s.prob_recovery as pr, s.prob_tightening as pt,
             s.prob_risk_off as po, r.model_version, s.available_at
      from signal_days s join model_runs r using (run_id) order by s.date desc limit 1`;
    if (!day) {
      throw new TradesealError('regime_not_published', 'the pipeline has published no day to return to, so the override stays in force', {
        hint: 'run the pipeline (`tradeseal pipeline run`), or publish another manual broadcast',
      });
    }
    const broadcast = await insertBroadcast(tx, {
      date: day.date,
      regime: day.regime,
      risk_score: day.risk_score,
      model_version: day.model_version,
      source: 'pipeline',
      probabilities: { expansion: day.pe, recovery: day.pr, tightening: day.pt, risk_off: day.po },
      reason: `released manual broadcast #${current.id}${reason ? `: ${reason}` : ''}`,
      published_by: releasedBy,
      available_at: day.available_at?.toISOString() ?? null,
    });
    return { released: current, broadcast };
  });
}
