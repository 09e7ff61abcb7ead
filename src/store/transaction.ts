/**
 * Running work in a transaction whether or not the caller already holds one.
 *
 * postgres.js gives a pool handle `begin()` and a transaction handle `savepoint()` but no `begin()`, so a
 * store function that must be atomic, and that callers may also want inside a larger transaction of their
 * own (an admin action and its audit entry commit together), opens a transaction only when it has none.
 */
import type { Sql, TransactionSql } from 'postgres';

/** A pool handle, or a handle already in a transaction. */
export type SqlOrTx = Sql | TransactionSql;

/** Whether `sql` is already in a transaction (it has no `begin()` of its own). */
export const inTransaction = (sql: SqlOrTx): sql is TransactionSql => typeof (sql as Partial<Sql>).begin !== 'function';

/** Runs `fn` in `sql`'s transaction when it is one, else in a new transaction that commits when `fn` resolves. */
export async function withTransaction<T>(sql: SqlOrTx, fn: (tx: TransactionSql) => Promise<T>): Promise<T> {
  if (inTransaction(sql)) return fn(sql);
  return (await sql.begin(fn)) as T;
}
