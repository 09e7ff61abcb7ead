/**
 * The two projects of `npm test` (vitest.config.ts): every test on the database the global setup chooses,
 * and the store tests that open that database once more on PGlite, the embedded store, so that both stores stay
 * green from one command.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export const MAIN_PROJECT = 'tradeseal';
export const PGLITE_PROJECT = 'store on PGlite';

/** The directory whose tests run on both stores. */
const STORE_TESTS = 'test/store';
/** What a test file imports to open the test database (test/helpers/db.ts). */
const OPENS_TEST_DB = /from '\.\.\/helpers\/db\.js'/;
/** Runs only on PostgreSQL: leader election on real Postgres (advisory locks held by sessions of two pools). */
const POSTGRES_ONLY = ['test/store/leader.test.ts'];

/**
 * The files run again on PGlite: those of test/store that open the test database, but the ones only PostgreSQL
 * runs. The other store tests (the embedded store's own, which open a PGlite of their own whatever the mode; the
 * driver's repairs; the migration files) and the crypto tests do the same in both projects, so they run once.
 */
export function pgliteFiles(root: string): string[] {
  return readdirSync(path.join(root, STORE_TESTS))
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => `${STORE_TESTS}/${f}`)
    .filter((f) => !POSTGRES_ONLY.includes(f) && OPENS_TEST_DB.test(readFileSync(path.join(root, f), 'utf8')))
    .sort();
}
