/** Wall-clock time in a named zone → instant: winter and summer, both 2025 clock changes in New York, another zone. */
import { describe, expect, it } from 'vitest';
import { zonedInstant, zoneOffsetMs } from '../../../src/core/calendars/zoned-time.js';

const NY = 'America/New_York';

describe('zonedInstant', () => {
  it.each([
    // date, local time, zone, UTC instant
    ['2025-01-15', '06:30', NY, '2025-01-15T11:30:00.000Z'], // winter: EST, UTC−5
    ['2025-07-15', '06:30', NY, '2025-07-15T10:30:00.000Z'], // summer: EDT, UTC−4
    ['2025-03-08', '06:30', NY, '2025-03-08T11:30:00.000Z'], // the day before clocks go forward
    ['2025-03-09', '06:30', NY, '2025-03-09T10:30:00.000Z'], // clocks went forward at 02:00 that morning
    ['2025-03-09', '16:30', NY, '2025-03-09T20:30:00.000Z'],
    ['2025-11-01', '06:30', NY, '2025-11-01T10:30:00.000Z'], // the day before clocks go back
    ['2025-11-02', '06:30', NY, '2025-11-02T11:30:00.000Z'], // clocks went back at 02:00 that morning
    ['2025-11-02', '16:15', NY, '2025-11-02T21:15:00.000Z'],
    ['2025-03-31', '09:00', 'Europe/London', '2025-03-31T08:00:00.000Z'], // BST from 2025-03-30
    ['2025-03-28', '09:00', 'Europe/London', '2025-03-28T09:00:00.000Z'],
  ])('%s %s %s is %s', (date, time, zone, iso) => {
    expect(new Date(zonedInstant(date, time, zone)).toISOString()).toBe(iso);
  });

  it.each(['02:30', '6:30', '24:00', '06:60', ''])('refuses the release time %j (before 03:00, or not HH:MM)', (time) => {
    expect(() => zonedInstant('2025-01-15', time, NY)).toThrow(RangeError);
  });
});

describe('zoneOffsetMs', () => {
  it('is −5 h in a New York winter and −4 h in its summer', () => {
    expect(zoneOffsetMs(Date.parse('2025-01-15T12:00:00Z'), NY)).toBe(-5 * 3_600_000);
    expect(zoneOffsetMs(Date.parse('2025-07-15T12:00:00Z'), NY)).toBe(-4 * 3_600_000);
  });
});
