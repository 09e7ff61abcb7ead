/** How many workers `serve` runs (src/http/cluster/count.ts): the flag, the setting, the default, the embedded store's one. */
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { configWith } from '../../src/config.js';
import { serveWorkers } from '../../src/http/cluster/count.js';
import { isTradesealError } from '../../src/errors.js';

const pg = 'postgres://tradeseal@db/tradeseal';

describe('serveWorkers', () => {
  it.each([
    { flag: undefined, setting: null, url: pg, expected: os.availableParallelism() },
    { flag: undefined, setting: 3, url: pg, expected: 3 },
    { flag: 2, setting: 3, url: pg, expected: 2 },
    { flag: 1, setting: null, url: pg, expected: 1 },
    { flag: undefined, setting: null, url: null, expected: 1 },
    { flag: 1, setting: null, url: null, expected: 1 },
    { flag: undefined, setting: 1, url: null, expected: 1 },
  ])('--workers $flag, SERVE_WORKERS $setting, DATABASE_URL $url: $expected', ({ flag, setting, url, expected }) => {
    expect(serveWorkers(flag, { serveWorkers: setting, databaseUrl: url })).toBe(expected);
  });

  it.each([
    { flag: 2, setting: null, says: '--workers 2 needs DATABASE_URL' },
    { flag: undefined, setting: 4, says: 'SERVE_WORKERS=4 needs DATABASE_URL' },
  ])('more than one worker on the embedded store is a usage error: $says', ({ flag, setting, says }) => {
    const err = (() => {
      try {
        serveWorkers(flag, { serveWorkers: setting, databaseUrl: null });
        return null;
      } catch (e) {
        return e;
      }
    })();
    expect(isTradesealError(err) && err.code).toBe('usage_error');
    expect((err as Error).message).toContain(says);
  });

  it('SERVE_WORKERS is read and checked with the other settings', () => {
    expect(configWith({}, { SERVE_WORKERS: '6' }).serveWorkers).toBe(6);
    expect(configWith({}, {}).serveWorkers).toBeNull();
    expect(() => configWith({}, { SERVE_WORKERS: '0' })).toThrow(/SERVE_WORKERS="0" \(expected an integer 1-256\)/);
  });
});
