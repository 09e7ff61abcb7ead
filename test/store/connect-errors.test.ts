/**
 * `storeConnectionError`: each way the PostgreSQL server of DATABASE_URL refuses a connection, or is not
 * there, said as a code of the table with a next step, never repeating the URL's password. The errors are
 * shaped as postgres.js and Node hand them over (a SQLSTATE `code` from the server; an errno `code` from
 * the socket); test/cli/ordinary-mistakes.test.ts meets the database and role cases on a real server.
 */
import { describe, expect, it } from 'vitest';
import { storeConnectionError } from '../../src/store/connect-errors.js';
import { TradesealError } from '../../src/core/errors.js';

const URL_WITH_SECRET = 'postgres://trader:s3cr%40t-pass@db.example:6543/ledger';

const failure = (code: string, message: string): Error => Object.assign(new Error(message), { code });

describe('storeConnectionError', () => {
  it.each([
    [
      '3D000',
      'database "ledger" does not exist',
      'config_invalid',
      'database "ledger" does not exist on the PostgreSQL server at db.example:6543',
      'createdb -h db.example -p 6543 -U trader ledger',
    ],
    [
      '28P01',
      'password authentication failed for user "trader"',
      'config_invalid',
      'refused the password of user "trader"',
      'correct the password in DATABASE_URL',
    ],
    [
      '28000',
      'role "trader" does not exist',
      'config_invalid',
      'refused user "trader": role "trader" does not exist',
      'createuser -h db.example -p 6543 trader',
    ],
    [
      '28000',
      'no pg_hba.conf entry for host "10.0.0.7", user "trader", database "ledger", no encryption',
      'config_invalid',
      'no pg_hba.conf entry',
      'pg_hba.conf',
    ],
    ['ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.9:6543', 'service_unavailable', 'nothing accepts connections at db.example:6543', 'start PostgreSQL there'],
    ['ENOTFOUND', 'getaddrinfo ENOTFOUND db.example', 'service_unavailable', 'the host "db.example" of DATABASE_URL cannot be resolved', 'correct the host'],
  ] as const)('%s (%s): %s', (code, message, expected, detail, hint) => {
    const e = storeConnectionError(failure(code, message), URL_WITH_SECRET);
    expect(e).toBeInstanceOf(TradesealError);
    expect(e!.code).toBe(expected);
    expect(e!.message).toContain(detail);
    expect(e!.hint).toContain(hint);
    if (expected === 'config_invalid') expect(e!.errors).toEqual([{ field: 'DATABASE_URL', message: expect.stringContaining(detail) }]);
    expect(JSON.stringify({ m: e!.message, h: e!.hint, e: e!.errors })).not.toContain('s3cr');
  });

  it("finds the refusal as the cause of a migration's store_error", () => {
    const wrapped = new TradesealError('store_error', 'migration 0001_init failed', { cause: failure('3D000', 'database "ledger" does not exist') });
    expect(storeConnectionError(wrapped, URL_WITH_SECRET)?.code).toBe('config_invalid');
  });

  it("leaves every other error to the caller: a query's own error, a timeout, a non-error", () => {
    expect(storeConnectionError(failure('42P01', 'relation "x" does not exist'), URL_WITH_SECRET)).toBeNull();
    expect(storeConnectionError(failure('CONNECT_TIMEOUT', 'write CONNECT_TIMEOUT db.example:6543'), URL_WITH_SECRET)).toBeNull();
    expect(storeConnectionError(new Error('boom'), URL_WITH_SECRET)).toBeNull();
    expect(storeConnectionError(null, URL_WITH_SECRET)).toBeNull();
  });
});
