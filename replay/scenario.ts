/**
 * The month a replay lives through: June 2025 and the first days of July, 23 trading days, chosen because it
 * holds every case the nightly job must get right:
 *
 * - a US holiday, Juneteenth (Thursday 2025-06-19): the NYSE and the Fed closed; the cron fires and finds
 *   nothing due; and Independence Day (Friday 2025-07-04) after the early close of 07-03;
 * - an H.4.1 delayed by that holiday: the balance sheet of Wednesday 06-18 is out on Friday 06-20 instead of
 *   Thursday, so the regime of 06-18 is computed without it and that of 06-20 with it;
 * - SPY's ex-dividend day, Friday 2025-06-20 (1.761 USD): the fetched history of prices as traded does not change,
 *   the night goes on, and the published performance counts the cash;
 * - a month end (06-30) and the next month's first day, on which the model is refitted;
 * - nights with a source down: the market source answers 503 on the morning of Wednesday 06-04 and of Friday
 *   06-13 until after the deadline, so the regime of Tuesday 06-03 is published the next morning with
 *   Wednesday's, and that of Thursday 06-12 on Monday with Friday's: each after the first open that would have
 *   traded it, so each is a backfill, and the live record leaves out the returns resting on them;
 * - a revised value of a published day: on 06-24 at 17:00 New York, FRED revises DGS10 of 06-16 (published
 *   with the regime of 06-17) from 4.46 to 4.48; the next night refuses to extend the history, naming DGS10 and
 *   2025-06-16, and the operator recomputes it (`tradeseal pipeline run --full --yes`).
 */
import { zonedInstant } from '../src/core/calendars/zoned-time.js';
import type { ScheduledRevision } from './reveal.js';

export interface Outage {
  source: 'market';
  fromMs: number;
  toMs: number;
}

export interface Scenario {
  /** The first and last trading day replayed; every day before `first` is published before the first night. */
  first: string;
  last: string;
  /** The first and last weekday the cron fires on: the publication days of `first` and `last`. */
  firstNight: string;
  lastNight: string;
  outage: Outage[];
  revisions: ScheduledRevision[];
}

const newYork = (day: string, time: string): number => zonedInstant(day, time, 'America/New_York');

export const JUNE_2025: Scenario = {
  first: '2025-06-02',
  last: '2025-07-03',
  firstNight: '2025-06-03',
  lastNight: '2025-07-07',
  outage: [
    { source: 'market', fromMs: newYork('2025-06-04', '06:00'), toMs: newYork('2025-06-04', '10:00') },
    { source: 'market', fromMs: newYork('2025-06-13', '06:00'), toMs: newYork('2025-06-13', '10:00') },
  ],
  revisions: [{ series: 'DGS10', date: '2025-06-16', value: '4.48', atMs: newYork('2025-06-24', '17:00') }],
};
