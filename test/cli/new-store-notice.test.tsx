/**
 * A mistyped TRADESEAL_HOME makes a new, empty embedded store: a command that finds nothing there says so once
 * on stderr (its --json answer stays clean), a command that makes the store on purpose does not, and the
 * officers' view names the store it reads when a tab is empty, so "nothing in DIVERGENT" is not mistaken for
 * an answer about the store the user meant.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeSource } from '../../src/cli/attention/source.js';
import { storeDescription } from '../../src/store/db.js';
import { openView } from '../helpers/attention-view.js';
import { cliEnv, describeRun, runCli, tempHome } from '../helpers/cli.js';
import { testStore, type TestStore } from '../helpers/db.js';

const parent = tempHome();

describe('a command on a TRADESEAL_HOME that holds no store', () => {
  it('says once on stderr that it made a new, empty store there, and keeps --json clean', async () => {
    const home = path.join(parent, 'mistyped');
    const env = cliEnv(home, undefined, { DATABASE_URL: undefined });
    const first = await runCli(['engine', 'orphans', '--json'], env);
    expect(first.code, describeRun(first)).toBe(0);
    expect(first.stderr).toContain(`notice: no store was in ${home} (TRADESEAL_HOME), so a new, empty one was made there`);
    expect(first.stderr).toContain('check TRADESEAL_HOME');
    expect((first.json() as { count: number }).count).toBe(0);
    const again = await runCli(['engine', 'orphans', '--json'], env);
    expect(again.code, describeRun(again)).toBe(0);
    expect(again.stderr).not.toContain('notice:');
  }, 60_000);

  it('says nothing when the command makes the store on purpose (db migrate)', async () => {
    const r = await runCli(['db', 'migrate'], cliEnv(path.join(parent, 'new'), undefined, { DATABASE_URL: undefined }));
    expect(r.code, describeRun(r)).toBe(0);
    expect(r.stderr).not.toContain('notice:');
  }, 60_000);
});

describe('the store a view or a message names', () => {
  it('is the embedded store with its directory, or the database and server without the password', () => {
    expect(storeDescription({ databaseUrl: null, home: '/srv/ts' })).toBe('the embedded store in /srv/ts (TRADESEAL_HOME)');
    const described = storeDescription({ databaseUrl: 'postgres://app:s3cret@db.internal:6432/trades', home: '/unused' });
    expect(described).toBe('the database trades on db.internal:6432 (DATABASE_URL)');
    expect(described).not.toContain('s3cret');
  });
});

describe("the officers' view on an empty store", () => {
  let store: TestStore;
  beforeAll(async () => {
    store = await testStore();
  });
  afterAll(async () => {
    await store?.close();
  });

  it('names the store it reads in the empty state', async () => {
    const view = await openView(storeSource(store.sql, null, { readsFrom: storeDescription({ databaseUrl: null, home: '/srv/ts' }) }));
    try {
      expect(view.frame().replace(/\s+/g, ' ')).toMatch(/nothing in \S+; reading the embedded store in \/srv\/ts \(TRADESEAL_HOME\)/);
    } finally {
      view.view.unmount();
    }
  });
});
