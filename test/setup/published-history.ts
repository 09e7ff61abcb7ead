/**
 * The published history shared by the tests that need one: the pipeline run once per test run, in the global
 * setup, on a copy of the migrated template (a database on PostgreSQL, a dump of PGlite), which test files
 * then copy as they copy the migrated one (`testStore({ history: 'published' })`). Each file gets its own
 * copy, so a file may write to it; what it starts from is always exactly this run's output.
 *
 * The run: the bundled data as of 2009-03-31 (the burn-in, late 2008's stress and the first months of 2009:
 * every regime appears), published, seed 7.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunSummary } from '../../pipeline/run.js';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export const PUBLISHED_HISTORY = Object.freeze({ dataDir: path.join(REPO_ROOT, 'data/macro'), asOf: '2009-03-31', publish: true, seed: 7 });

/** What the run reported, for tests that compare with it. */
export type PublishedRun = RunSummary;
