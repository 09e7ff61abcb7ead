/**
 * Which day a night publishes (src/signals/nightly/due.ts) and when it gives up (src/signals/nightly/deadline.ts), at
 * the instants where an off-by-one would publish a day early, skip one, or give a night no time: the second
 * before and the second of 06:30 New York, weekends, NYSE holidays (Juneteenth, Memorial Day) and both
 * daylight-saving changes, whose 06:30 is another UTC hour than the day before.
 */
import { describe, expect, it } from 'vitest';
import { deadlineAfter } from '../../../src/signals/nightly/deadline.js';
import { dueDay, tradingDaysBetween } from '../../../src/signals/nightly/due.js';

/** The instant of a New York wall-clock time, written with its UTC offset so the test states it by hand. */
const at = (iso: string): number => {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new RangeError(`not an instant: ${iso}`);
  return ms;
};

describe('dueDay: the newest trading day whose 06:30 publication has come', () => {
  it.each([
    ["Tuesday 06:29:59 EDT: Monday's publication has not come, Friday is due", '2025-06-10T06:29:59-04:00', '2025-06-06'],
    ['Tuesday 06:30:00 EDT: Monday is due', '2025-06-10T06:30:00-04:00', '2025-06-09'],
    ['Tuesday 23:59 EDT (already Wednesday in UTC): still Monday', '2025-06-10T23:59:00-04:00', '2025-06-09'],
    ["Saturday: Thursday (Friday's publication is Monday's 06:30)", '2025-06-14T12:00:00-04:00', '2025-06-12'],
    ['Sunday night: still Thursday', '2025-06-15T23:00:00-04:00', '2025-06-12'],
    ['Monday 06:29 after a Friday: Thursday', '2025-06-16T06:29:00-04:00', '2025-06-12'],
    ['Monday 06:30 after a Friday: Friday', '2025-06-16T06:30:00-04:00', '2025-06-13'],
    ['Juneteenth (NYSE closed Thursday 2025-06-19), any hour: Tuesday', '2025-06-19T12:00:00-04:00', '2025-06-17'],
    ['the morning after Juneteenth, 06:30: Wednesday, published on the next trading day', '2025-06-20T06:30:00-04:00', '2025-06-18'],
    ['the Monday after Juneteenth, 06:30: Friday 06-20', '2025-06-23T06:30:00-04:00', '2025-06-20'],
    ['Memorial Day (Monday 2025-05-26): Thursday', '2025-05-26T08:00:00-04:00', '2025-05-22'],
    ['the Tuesday after Memorial Day, 06:29: Thursday', '2025-05-27T06:29:00-04:00', '2025-05-22'],
    ['the Tuesday after Memorial Day, 06:30: Friday', '2025-05-27T06:30:00-04:00', '2025-05-23'],
    ['Friday 06:30 EST, before the clocks change', '2025-03-07T06:30:00-05:00', '2025-03-06'],
    ['the Monday after the spring change, 06:29:59 EDT (10:29:59 UTC)', '2025-03-10T06:29:59-04:00', '2025-03-06'],
    ["the Monday after the spring change, 06:30 EDT (10:30 UTC, an hour before Friday's 11:30 UTC)", '2025-03-10T06:30:00-04:00', '2025-03-07'],
    ["the Monday after the autumn change, 06:29 EST (11:29 UTC, after the summer's 10:30 UTC)", '2025-11-03T06:29:00-05:00', '2025-10-30'],
    ['the Monday after the autumn change, 06:30 EST', '2025-11-03T06:30:00-05:00', '2025-10-31'],
    ["New Year's Day 2026, a Thursday: Tuesday 2025-12-30 (Wednesday's publication is Friday)", '2026-01-01T09:00:00-05:00', '2025-12-30'],
  ])('%s', (_name, instant, due) => {
    expect(dueDay(at(instant))).toBe(due);
  });
});

describe('tradingDaysBetween: the days a night owes', () => {
  it('skips a holiday and a weekend, from the day after the first to the last inclusive', () => {
    expect(tradingDaysBetween('2025-06-17', '2025-06-23')).toEqual(['2025-06-18', '2025-06-20', '2025-06-23']);
  });

  it('over Memorial Day weekend: Friday, then Tuesday', () => {
    expect(tradingDaysBetween('2025-05-22', '2025-05-27')).toEqual(['2025-05-23', '2025-05-27']);
  });

  it('nothing when the last published day is the due day, or only closed days lie between', () => {
    expect(tradingDaysBetween('2025-06-18', '2025-06-18')).toEqual([]);
    expect(tradingDaysBetween('2025-06-18', '2025-06-19')).toEqual([]);
  });
});

describe('deadlineAfter: the first HH:MM strictly after the night started', () => {
  const NEW_YORK = 'America/New_York';

  it.each([
    ['started 06:30 with 09:00: 09:00 that morning', '2025-06-10T06:30:00-04:00', '2025-06-10T09:00:00-04:00'],
    ['started at 08:59: one minute', '2025-06-10T08:59:00-04:00', '2025-06-10T09:00:00-04:00'],
    ['started at 09:00 exactly: the next morning, never no time at all', '2025-06-10T09:00:00-04:00', '2025-06-11T09:00:00-04:00'],
    ['started 10:00: 09:00 the next morning', '2025-06-10T10:00:00-04:00', '2025-06-11T09:00:00-04:00'],
    ['started 23:30 (already the next day in UTC): 09:00 the next New York morning', '2025-06-10T23:30:00-04:00', '2025-06-11T09:00:00-04:00'],
    ['started 10:00 EST on the Saturday before the spring change: 09:00 EDT Sunday, 22 hours later', '2025-03-08T10:00:00-05:00', '2025-03-09T09:00:00-04:00'],
    ["started 06:30 EDT on the spring change's Sunday: 09:00 EDT", '2025-03-09T06:30:00-04:00', '2025-03-09T09:00:00-04:00'],
    ['started 10:00 EDT on the Saturday before the autumn change: 09:00 EST Sunday, 24 hours later', '2025-11-01T10:00:00-04:00', '2025-11-02T09:00:00-05:00'],
  ])('%s', (_name, started, deadline) => {
    expect(new Date(deadlineAfter(at(started), '09:00', NEW_YORK)).toISOString()).toBe(new Date(at(deadline)).toISOString());
  });

  it('keeps the wall-clock time of another zone', () => {
    // 09:00 in London on 2025-06-10 is 08:00 UTC; a night started at 06:30 New York (10:30 UTC) is past it.
    expect(new Date(deadlineAfter(at('2025-06-10T06:30:00-04:00'), '09:00', 'Europe/London')).toISOString()).toBe('2025-06-11T08:00:00.000Z');
  });
});
