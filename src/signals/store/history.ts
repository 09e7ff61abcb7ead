/** Reading the published regime history (the compact history rows of the signal service). */
import type { Sql } from 'postgres';
import { availableAtText } from '../publish/published.js';

export interface CompactHistoryRow {
  date: string;
  regime: string;
  risk_score: number;
  prob_expansion: number;
  prob_recovery: number;
  prob_tightening: number;
  prob_risk_off: number;
  /** When the day was published (ISO-8601 UTC); null for days published before release-time data. */
  available_at: string | null;
}

/** Rows between `start` and `end` (inclusive, either open), oldest first. */
export async function compactHistory(sql: Sql, range: { start?: string | null; end?: string | null }): Promise<CompactHistoryRow[]> {
  return sql<CompactHistoryRow[]>`
    select date::text as date, regime, risk_score, prob_expansion, prob_recovery, prob_tightening, prob_risk_off,
           ${sql.unsafe(availableAtText('available_at'))} as available_at
    from signal_days
    where (${range.start ?? null}::date is null or date >= ${range.start ?? null}::date)
      and (${range.end ?? null}::date is null or date <= ${range.end ?? null}::date)
    order by date`;
}

/** Whether any signal package is published (the pipeline has run at least once). */
export async function hasPublishedSignals(sql: Sql): Promise<boolean> {
  const [row] = await sql<Array<{ any: boolean }>>`select exists (select 1 from signal_days) as any`;
  return row?.any === true;
}
