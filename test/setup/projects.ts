/**
 * The two projects of `npm test` (vitest.config.ts): every test on the database the global setup chooses,
 * and the store and crypto tests once more on PGlite, the embedded store, so that both stores stay green
 * from one command.
 */
export const MAIN_PROJECT = 'tradeseal';
export const PGLITE_PROJECT = 'store on PGlite';

/** The files run again on PGlite: the store and crypto tests, but the one that only runs on PostgreSQL. */
export const PGLITE_INCLUDE = ['test/store/**/*.test.ts', 'test/crypto/**/*.test.ts'];
export const PGLITE_EXCLUDE = ['test/store/leader.test.ts'];
