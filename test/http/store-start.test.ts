/**
 * The start on a store that may be away (src/http/store-start.ts): which failures are waited for and which end
 * the start, and the wait itself: an attempt after each pause, each failure logged with the next pause, the
 * preparation's success ending it, the bound ending it with `service_unavailable` and a hint.
 */
import { describe, expect, it } from 'vitest';
import { TradesealError } from '../../src/core/errors.js';
import { storeAwayOrThrow, waitForStore } from '../../src/http/store-start.js';

const URL = 'postgres://tradeseal:secret@db.example:6543/tradeseal';
const fault = (code: string, message = code): Error => Object.assign(new Error(message), { code });
const RETRY = { firstMs: 5, capMs: 20 };

describe('storeAwayOrThrow', () => {
  it.each([
    ['nothing listens', fault('ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.9:6543'), /nothing accepts connections at db\.example:6543/],
    ['the connection times out', fault('CONNECT_TIMEOUT', 'write CONNECT_TIMEOUT db.example:6543'), /the store does not answer \(CONNECT_TIMEOUT/],
    ['the server is starting up', fault('57P03', 'the database system is starting up'), /57P03/],
    [
      'a migration cut off by the store',
      new TradesealError('store_error', 'migration 0001_base failed: read ECONNRESET', { cause: fault('ECONNRESET', 'read ECONNRESET') }),
      /ECONNRESET/,
    ],
  ])('%s: the store is away, worth waiting for', (_what, err, detail) => {
    const away = storeAwayOrThrow(err, URL);
    expect(away.code).toBe('service_unavailable');
    expect(away.message).toMatch(detail);
    expect(away.hint).toBeTruthy();
  });

  it.each([
    ['a wrong password', fault('28P01', 'password authentication failed for user "tradeseal"'), 'config_invalid', /password/],
    ['no such database', fault('3D000', 'database "tradeseal" does not exist'), 'config_invalid', /createdb/],
    ['a changed migration', new TradesealError('store_error', 'migration 0001_base was applied with checksum a but the file now has b'), 'store_error', /.*/],
    ['a fault of the code', new TypeError('x is not a function'), undefined, /.*/],
  ])('%s: ends the start with its own error', (_what, err, code, hint) => {
    let thrown: unknown;
    try {
      storeAwayOrThrow(err, URL);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeDefined();
    if (code) expect((thrown as TradesealError).code).toBe(code);
    if (code === 'config_invalid') expect((thrown as TradesealError).hint).toMatch(hint);
    expect(String((thrown as Error).message)).not.toContain('secret');
  });
});

describe('waitForStore', () => {
  const first = new TradesealError('service_unavailable', 'nothing accepts connections at db.example:6543 (ECONNREFUSED)', { hint: 'start PostgreSQL there' });
  const lines = (): { warn: string[]; info: string[]; log: { warn(m: string): void; info(m: string): void } } => {
    const warn: string[] = [];
    const info: string[] = [];
    return { warn, info, log: { warn: (m) => void warn.push(m), info: (m) => void info.push(m) } };
  };

  it('tries again after each pause, logging every failure, until the preparation succeeds', async () => {
    let attempts = 0;
    const { warn, info, log } = lines();
    const wait = waitForStore(
      async () => {
        if (++attempts < 3) throw fault('ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.9:6543');
      },
      first,
      { databaseUrl: URL, waitS: 60, log, retry: RETRY },
    );
    await wait.done;
    expect(attempts).toBe(3);
    expect(warn).toHaveLength(3);
    expect(warn[0]).toMatch(
      /^the store is not available \(nothing accepts connections at db\.example:6543 \(ECONNREFUSED\)\); the server answers 503 meanwhile and tries again in 0\.005 s \(a start waits up to 60 s: STORE_START_WAIT_S\)$/,
    );
    expect(warn[2]).toMatch(/tries again in 0\.02 s/);
    expect(info).toEqual(['the store answers: the server serves (3 attempts had failed)']);
  });

  it('gives up past its bound with service_unavailable and a hint naming STORE_START_WAIT_S', async () => {
    const { log } = lines();
    const wait = waitForStore(
      async () => {
        throw fault('ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.9:6543');
      },
      first,
      { databaseUrl: URL, waitS: 0.05, log, retry: RETRY },
    );
    const err = await wait.done.then(
      () => null,
      (e: unknown) => e as TradesealError,
    );
    expect(err?.code).toBe('service_unavailable');
    expect(err?.message).toMatch(/^the store did not answer within 0\.05 s of the start \(STORE_START_WAIT_S\): nothing accepts connections/);
    expect(err?.hint).toMatch(/^start PostgreSQL there.*; STORE_START_WAIT_S sets how long a start waits for the store$/);
  });

  it('ends at once when the store then refuses DATABASE_URL', async () => {
    const { log } = lines();
    const wait = waitForStore(
      async () => {
        throw fault('28P01', 'password authentication failed for user "tradeseal"');
      },
      first,
      { databaseUrl: URL, waitS: 60, log, retry: RETRY },
    );
    const err = await wait.done.then(
      () => null,
      (e: unknown) => e as TradesealError,
    );
    expect(err?.code).toBe('config_invalid');
  });

  it('stops trying when the server closes', async () => {
    let attempts = 0;
    const { log } = lines();
    const wait = waitForStore(
      async () => {
        attempts++;
        throw fault('ECONNREFUSED');
      },
      first,
      { databaseUrl: URL, waitS: 60, log, retry: { firstMs: 20, capMs: 20 } },
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    await wait.stop();
    const seen = attempts;
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(attempts).toBe(seen);
  });
});
