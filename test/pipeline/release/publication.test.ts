/** When a trading day's regime is published (06:30 New York on the next trading day), and the first open after an instant. */
import { describe, expect, it } from 'vitest';
import { availableAt, firstOpenAfter, publicationDay } from '../../../pipeline/release/publication.js';

const iso = (ms: number): string => new Date(ms).toISOString();

describe('publication', () => {
  it.each([
    // trading day, publication day, available_at
    ['2025-11-26', '2025-11-28', '2025-11-28T11:30:00.000Z'], // Wednesday before Thanksgiving: published Friday
    ['2025-11-28', '2025-12-01', '2025-12-01T11:30:00.000Z'], // a Friday: published Monday 06:30
    ['2025-03-07', '2025-03-10', '2025-03-10T10:30:00.000Z'], // published the Monday after clocks went forward (EDT)
    ['2025-10-31', '2025-11-03', '2025-11-03T11:30:00.000Z'], // published the Monday after clocks went back (EST)
    ['2025-04-17', '2025-04-21', '2025-04-21T10:30:00.000Z'], // Thursday before Good Friday
    ['2025-10-10', '2025-10-13', '2025-10-13T10:30:00.000Z'], // Columbus Day is a trading day
  ])('%s is published on %s at %s', (day, pub, at) => {
    expect(publicationDay(day)).toBe(pub);
    expect(iso(availableAt(day))).toBe(at);
  });
});

describe('firstOpenAfter', () => {
  it.each([
    ['2025-11-28T14:30:00.000Z', '2025-11-28'], // exactly the 09:30 open: at or after
    ['2025-11-28T14:30:00.001Z', '2025-12-01'],
    ['2025-11-29T17:00:00.000Z', '2025-12-01'], // a Saturday
    ['2025-07-03T23:00:00.000Z', '2025-07-07'], // 19:00 New York on July 3rd; July 4th is a holiday
    ['2025-07-04T02:00:00.000Z', '2025-07-07'], // still July 3rd in New York
    ['2025-03-10T13:29:00.000Z', '2025-03-10'], // 09:29 EDT
  ])('the first open at or after %s is on %s', (at, day) => {
    expect(firstOpenAfter(Date.parse(at))).toBe(day);
  });

  it('is the publication day for every day of 2024–2025: a subscriber trades at the open after 06:30', () => {
    for (let d = Date.parse('2024-01-01T00:00:00Z'); d <= Date.parse('2025-12-31T00:00:00Z'); d += 86_400_000) {
      const day = new Date(d).toISOString().slice(0, 10);
      expect(firstOpenAfter(availableAt(day))).toBe(publicationDay(day));
    }
  });
});
