/**
 * Whether the signal service has data to serve (503 `pipeline_lag` otherwise,
 * docs/decisions/0021-data-refusals.md): none is
 * published yet, or a pipeline run is publishing while the newest published day is older than expected (the
 * NYSE trading day before today: the nightly run publishes the previous session). Read from the store at most
 * once per `refreshMs` per process, so data routes do not pay a query for it on every request.
 */
import type { Sql } from 'postgres';
import { TradesealError } from '../core/errors.js';
import { addDays } from '../core/dates.js';
import { isNyseTradingDay } from '../core/calendars/nyse.js';

interface State {
  newest: string | null;
  /** The run that published the newest day: what caches of published data are keyed on. */
  newestRun: string | null;
  running: boolean;
  at: number;
}

/** The NYSE trading day before `today` (YYYY-MM-DD). */
export function previousTradingDay(today: string): string {
  let d = addDays(today, -1);
  while (!isNyseTradingDay(d)) d = addDays(d, -1);
  return d;
}

export class DataState {
  private state: State | null = null;
  private reading: Promise<State> | null = null;

  constructor(
    private readonly sql: Sql,
    private readonly refreshMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  private async read(): Promise<State> {
    const [row] = await this.sql<Array<{ newest: string | null; newest_run: string | null; running: boolean }>>`
      select n.date::text as newest, n.run_id as newest_run,
             exists (select 1 from model_runs where status = 'running' and started_at > now() - interval '2 hours') as running
      from (select 1) one left join lateral (select date, run_id from signal_days order by date desc limit 1) n on true`;
    return { newest: row?.newest ?? null, newestRun: row?.newest_run ?? null, running: row?.running ?? false, at: this.now() };
  }

  async current(): Promise<State> {
    if (this.state && this.now() - this.state.at < this.refreshMs) return this.state;
    this.reading ??= this.read().finally(() => {
      this.reading = null;
    });
    this.state = await this.reading;
    return this.state;
  }

  /** Throws `pipeline_lag` when there is nothing to serve, or a run is publishing over stale data; else the newest day. */
  async assertServable(): Promise<string> {
    return (await this.servable()).newest;
  }

  /** As `assertServable`, with the run that published the newest day. */
  async servable(): Promise<{ newest: string; newestRun: string | null }> {
    const s = await this.current();
    if (s.newest === null)
      throw new TradesealError('pipeline_lag', 'no data is published yet: the daily pipeline has not run', { hint: 'retry once the pipeline has run' });
    const expected = previousTradingDay(new Date(this.now()).toISOString().slice(0, 10));
    if (s.running && s.newest < expected) {
      throw new TradesealError('pipeline_lag', `the daily pipeline is publishing: the newest published day is ${s.newest}, ${expected} is expected`, {
        hint: 'retry in a few minutes',
      });
    }
    return { newest: s.newest, newestRun: s.newestRun };
  }
}
