/**
 * How tradeseal configures the postgres.js driver, in one place, for a real server and the embedded store alike.
 *
 * Both kinds of store are reached through this one function, so every query sees the same type parsing
 * and the same connection behaviour whether it runs against Postgres 15 or against PGlite over a socket.
 */
import postgres from 'postgres';
import { TradesealError } from '../errors.js';

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
}

/**
 * A postgres.js handle to `url`. Lazy: it connects on first query, so a bad URL fails there, not here.
 *
 * - `onnotice` is silenced: `create table if not exists` and friends emit NOTICEs that are not problems,
 *   and the driver's default prints them to stdout, which would corrupt `--json` output of commands.
 * - `prepare: true` names statements, which is faster on a real server and is also what keeps concurrent
 *   clients of the embedded socket server apart (see `embedded-server.ts`).
 * - `connection.application_name` labels tradeseal's sessions in `pg_stat_activity` (PGlite ignores it).
 */
export function connect(url: string, options: ConnectOptions = {}): Sql {
  return postgres(url, {
    max: options.max ?? 10,
    prepare: true,
    onnotice: () => {},
    connection: { application_name: 'tradeseal' },
    types: { int8 },
  }) as unknown as Sql;
}
