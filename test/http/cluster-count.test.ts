/** How many workers `serve` runs (src/http/cluster/count.ts): the flag, the setting, the default, the embedded store's one. */
import os from 'node:os';
import { describe, expect, it, vi } from 'vitest';
import { configWith } from '../../src/core/config.js';
import { databaseOnThisHost, serveWorkers, thisHost, type HostFacts } from '../../src/http/cluster/count.js';
import { isTradesealError } from '../../src/core/errors.js';

const pg = 'postgres://tradeseal@db/tradeseal';
/** A 4-core host named `app1` with one interface address. */
const host: HostFacts = { cores: 4, hostname: 'app1', addresses: ['127.0.0.1', '10.0.0.7', 'fe80::1'] };

describe('serveWorkers', () => {
  it('uses one worker per core of this machine by default when PostgreSQL is elsewhere', () => {
    expect(serveWorkers(undefined, { serveWorkers: null, databaseUrl: pg })).toBe(os.availableParallelism());
  });

  it.each([
    { url: pg, expected: 4 },
    { url: 'postgres://tradeseal@127.0.0.1:5432/tradeseal', expected: 2 },
    { url: 'postgres://tradeseal@localhost/tradeseal', expected: 2 },
    { url: 'postgres://tradeseal@[::1]:5432/tradeseal', expected: 2 },
    { url: 'postgres://tradeseal@app1/tradeseal', expected: 2 },
    { url: 'postgres://tradeseal@APP1:5432/tradeseal', expected: 2 },
    { url: 'postgres://tradeseal@10.0.0.7/tradeseal', expected: 2 },
    { url: 'postgres://tradeseal@10.0.0.8/tradeseal', expected: 4 },
    { url: 'postgres:///tradeseal?host=/run/postgresql', expected: 2 },
  ])('by default, on 4 cores, $url: $expected workers (half the cores when PostgreSQL shares the host)', ({ url, expected }) => {
    expect(serveWorkers(undefined, { serveWorkers: null, databaseUrl: url }, host)).toBe(expected);
  });

  it('leaves at least one worker on a single core beside PostgreSQL, and the flag and the setting still decide', () => {
    const one = { ...host, cores: 1 };
    expect(serveWorkers(undefined, { serveWorkers: null, databaseUrl: 'postgres://t@127.0.0.1/t' }, one)).toBe(1);
    expect(serveWorkers(undefined, { serveWorkers: null, databaseUrl: 'postgres://t@127.0.0.1/t' }, { ...host, cores: 2 })).toBe(1);
    expect(serveWorkers(3, { serveWorkers: null, databaseUrl: 'postgres://t@127.0.0.1/t' }, host)).toBe(3);
    expect(serveWorkers(undefined, { serveWorkers: 4, databaseUrl: 'postgres://t@127.0.0.1/t' }, host)).toBe(4);
  });

  it('still decides where the system will not list its interfaces: by the loopback names and the host name', () => {
    const spy = vi.spyOn(os, 'networkInterfaces').mockImplementation(() => {
      throw new Error('uv_interface_addresses returned Unknown system error 1');
    });
    try {
      const facts = thisHost();
      expect(facts.addresses).toEqual([]);
      expect(databaseOnThisHost('postgres://t@127.0.0.1/t', facts)).toBe(true);
      expect(databaseOnThisHost(`postgres://t@${os.hostname()}/t`, facts)).toBe(true);
      expect(databaseOnThisHost('postgres://t@db.example/t', facts)).toBe(false);
    } finally {
      spy.mockRestore();
    }
  });

  it('reads a URL it cannot parse as naming another host', () => {
    expect(databaseOnThisHost('not a url', host)).toBe(false);
  });

  it.each([
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
