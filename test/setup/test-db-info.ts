/**
 * What the global setup tells test workers about the test database, through vitest's `provide`/`inject`.
 *
 * The mode is chosen once per run (see `global-db.ts`); workers only read it, so every test file of a run
 * uses the same kind of database.
 */
export type TestDbInfo =
  | {
      mode: 'postgres';
      /** A database on the server in which the tests may `CREATE DATABASE` and `DROP DATABASE`. */
      adminUrl: string;
      /** Database migrated once, the template of every migrated test database. */
      template: string;
      /** Where the shared published history is made, when a file first asks for it (./published-history.ts). */
      published: { template: string; runFile: string };
      description: string;
    }
  | {
      mode: 'pglite';
      /** PGlite data directory dumps (tar): freshly initialised, and migrated. */
      emptyDump: string;
      migratedDump: string;
      /** Where the shared published history is made, when a file first asks for it (./published-history.ts). */
      published: { dump: string; runFile: string };
      description: string;
    };

export const TEST_DB_KEY = 'tradesealTestDb';

/** A directory of the run, for what files share beyond the database (test/helpers/docs-template.ts); removed at its end. */
export const TEST_SCRATCH_KEY = 'tradesealTestScratch';

declare module 'vitest' {
  export interface ProvidedContext {
    [TEST_DB_KEY]: TestDbInfo;
    [TEST_SCRATCH_KEY]: string;
  }
}
