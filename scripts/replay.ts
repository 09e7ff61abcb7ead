/**
 * `npm run replay`: June 2025 replayed night by night on simulated time (replay/month.ts), on embedded stores of
 * its own in a temporary directory (never the store of DATABASE_URL or TRADESEAL_HOME), with local servers
 * answering as FRED and Yahoo do. Prints the month's report (replay/report.ts); `--json` prints everything as
 * JSON. Takes about two minutes; the same month is a test (test/replay/month.test.ts).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig, type Config } from '../src/core/config.js';
import { openStore } from '../src/store/db.js';
import { migrate } from '../src/store/migrate.js';
import { compareWithFullRun, liveRecord } from '../replay/checks.js';
import { replayMonth } from '../replay/month.js';
import { renderReport } from '../replay/report.js';
import { JUNE_2025 } from '../replay/scenario.js';

// `--out FILE`: the result as JSON in FILE too (the documentation's benchmark blocks are made so).
const { values } = parseArgs({ options: { json: { type: 'boolean', default: false }, out: { type: 'string' } } });
const work = await mkdtemp(path.join(os.tmpdir(), 'tradeseal-replay-'));
const say = (line: string): void => {
  if (!values.json) process.stderr.write(`${line}\n`);
};

/** An embedded store of the replay's own under `home`, migrated. */
async function ownStore(settings: Config, home: string) {
  const config: Config = { ...settings, databaseUrl: null, home, logLevel: 'silent' };
  const store = await openStore(config, { purpose: 'replay' });
  await migrate(store.sql);
  return { config, store };
}

try {
  const settings = loadConfig();
  const replayed = await ownStore(settings, path.join(work, 'replayed'));
  const fresh = await ownStore(settings, path.join(work, 'full-run'));
  try {
    say(`replaying ${JUNE_2025.first} to ${JUNE_2025.last} in ${work}`);
    const result = await replayMonth({ sql: replayed.store.sql, config: replayed.config, workDir: work, scenario: JUNE_2025, say });
    say('a full run over the same data on a new store, to compare…');
    const comparison = await compareWithFullRun(replayed.store.sql, fresh.store.sql, result.dataDir, JUNE_2025.last);
    const live = await liveRecord(replayed.store.sql);
    const json = `${JSON.stringify({ ...result, comparison, live }, null, 2)}\n`;
    process.stdout.write(values.json ? json : `${renderReport(result, comparison, live)}\n`);
    if (values.out) {
      await writeFile(values.out, json);
      process.stdout.write(`written: ${values.out}\n`);
    }
  } finally {
    await replayed.store.close();
    await fresh.store.close();
  }
} finally {
  await rm(work, { recursive: true, force: true });
}
