/**
 * How tradeseal configures the postgres.js driver, in one place, for a real server and the embedded store alike.
 *
 * Both kinds of store are reached through this one function, so every query sees the same type parsing
 * and the same connection behaviour whether it runs against Postgres 15 or against PGlite over a socket.
 */
import postgres from 'postgres';
import { TradesealError } from '../core/errors.js';
import { assertDriverRepaired } from './driver-repairs.js';

/** The handle every store function takes as its first parameter (or a transaction / reserved connection of it). */
export type Sql = postgres.Sql;

/** Postgres type OID of `int8` (`bigint`). */
const INT8_OID = 20;

/**
 * `int8` values arrive as JS numbers, and fail loudly when they are not exactly representable.
 *
 * postgres.js returns `int8` as a string by default because a JS number holds integers exactly only up to
 * 2^53 - 1. That default makes every `count(*)`, `sum(int)` and bigint id a string, which leaks into JSON
 * bodies and comparisons. The alternatives are worse: `BigInt` cannot pass through `JSON.stringify`, and a
 * number-or-bigint union makes every caller branch. Every int8 tradeseal stores (row counts, ids, sequence
 * numbers, epoch milliseconds) stays far below 2^53, so numbers are right; a value beyond that is a bug or
 * hostile data, and silently rounding it would corrupt it, so parsing throws instead. Queries that truly need
 * the full range cast to `text` or `numeric` in SQL. (`numeric`, e.g. money, stays a string: it is decimal.)
 */
export function parseInt8(text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n)) {
    throw new TradesealError('store_error', `int8 value ${text} is outside the range a JS number holds exactly (±2^53-1); cast it to text or numeric in SQL`);
  }
  return n;
}

const int8: postgres.PostgresType<number> = {
  to: INT8_OID,
  from: [INT8_OID],
  parse: parseInt8,
  // Accepts numbers, bigints and digit strings alike; the server validates the text form.
  serialize: (value: number | bigint | string) => String(value),
};

export interface ConnectOptions {
  /** Connections in the pool; default 10. */
  max?: number;
  /** How long opening a connection may take before it fails with CONNECT_TIMEOUT; default 30 s (the driver's). */
  connectTimeoutMs?: number;
  /**
   * The server's `statement_timeout` for every session of the pool (a longer statement fails with 57014);
   * default none. Long work opts out on its own connection (`withoutStatementTimeout`). PGlite ignores it.
   */
  statementTimeoutMs?: number;
  /** The sessions' `application_name` in `pg_stat_activity`; default `tradeseal`. */
  applicationName?: string;
}

/** The longest pause before the pool tries a closed connection again, in seconds (see `reconnectDelay`). */
export const MAX_RECONNECT_DELAY_S = 0.25;

/**
 * How long the pool waits, after `retries` failed connection attempts in a row, before it connects again.
 *
 * The driver's own backoff grows as 3^retries / 100 s up to 20 s and counts every failure of every connection
 * of the pool: a store outage of a few seconds under load pushed it to its cap, so requests waited up to 20 s
 * for a connection and kept failing for 10 s after the store was back. Here the pause doubles from 25 ms
 * and stops at a quarter of a second, with jitter so a pool does not reconnect in lockstep: a request during
 * an outage fails at once (503) instead of queueing, and the first request after the store returns connects.
 * Attempts against a store that is down cost a refused connection each, a few dozen a second at most.
 */
export function reconnectDelay(retries: number): number {
  return (0.5 + Math.random() / 2) * Math.min(0.025 * 2 ** retries, MAX_RECONNECT_DELAY_S);
}

/**
 * A postgres.js handle to `url`. Lazy: it connects on first query, so a bad URL fails there, not here.
 *
 * - `onnotice` is silenced: `create table if not exists` and friends emit NOTICEs that are not problems,
 *   and the driver's default prints them to stdout, which would corrupt `--json` output of commands.
 * - `prepare: true` names statements, which is faster on a real server and is also what keeps concurrent
 *   clients of the embedded socket server apart (see `embedded-server.ts`).
 * - `connection.application_name` labels tradeseal's sessions in `pg_stat_activity` (PGlite ignores it).
 * - `backoff` is `reconnectDelay`: a pool recovers within a fraction of a second of the store's return.
 * - The driver must carry its repairs (driver-repairs.ts): the first store opened checks them, or refuses.
 */
export function connect(url: string, options: ConnectOptions = {}): Sql {
  assertDriverRepaired();
  return postgres(url, {
    max: options.max ?? 10,
    prepare: true,
    onnotice: () => {},
    backoff: reconnectDelay,
    ...(options.connectTimeoutMs === undefined ? {} : { connect_timeout: options.connectTimeoutMs / 1000 }),
    connection: {
      application_name: options.applicationName ?? 'tradeseal',
      ...(options.statementTimeoutMs === undefined ? {} : { statement_timeout: options.statementTimeoutMs }),
    },
    types: { int8 },
  });
}

/**
 * Runs `fn` on a reserved connection without the pool's statement timeout: for work that is long by nature and
 * must not be cut (migrations, a pipeline run's publication). The session's own setting is restored afterwards,
 * before the connection goes back to the pool (`reset` returns to the value the session started with).
 */
export async function withoutStatementTimeout<T>(conn: postgres.ReservedSql, fn: () => Promise<T>): Promise<T> {
  await conn`set statement_timeout = 0`;
  try {
    return await fn();
  } finally {
    await conn`reset statement_timeout`.catch(() => {});
  }
}
