/**
 * `tradeseal engine audit-log` and `… audit-log verify` against a real store: the CLI's admin actions are
 * entries with the operator as actor, the listing's flags are checked like the API's query, and verify
 * walks the whole chain: exit 0 when it holds, exit 5 naming the first broken link after tampering, with the
 * same answer against a running server (`--url`, over real HTTP) as on the store.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWith } from '../../src/core/config.js';
import { appendAudit } from '../../src/engine/audit/append.js';
import { startServer, type RunningServer } from '../../src/http/server.js';
import { cliEnv, describeRun, runCli, tempHome, type CliEnv } from '../helpers/cli.js';
import { testStore, type TestStore } from '../helpers/db.js';

let store: TestStore;
let env: CliEnv;
let server: RunningServer;
/** No store reachable: a remote verify must read the chain over HTTP. */
let nowhere: CliEnv;
let ownerToken = '';
const home = tempHome();
beforeAll(async () => {
  store = await testStore();
  env = cliEnv(home, store.url);
  nowhere = cliEnv(home, 'postgres://nobody@127.0.0.1:1/none');
  server = await startServer(configWith({ databaseUrl: store.url, logLevel: 'silent', port: 0 }), { services: ['engine'] });
}, 120_000);
afterAll(async () => {
  await server?.close();
  await store?.close();
});

/** Once the server has anchored the chain's head (it does within a second), so that both runs read one checkpoint. */
async function anchoredHead(): Promise<void> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const [row] = await store.sql<Array<{ anchored: boolean }>>`
      select coalesce((select entry_id from audit_checkpoints order by size desc limit 1) = (select id from audit_log order by seq desc limit 1), false) as anchored`;
    if (row?.anchored) return;
    if (Date.now() > deadline) throw new Error("the server did not anchor the audit chain's head within 5 s");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** `engine audit-log verify` on the store and against the server, which must agree; the remote run's result. */
async function verifyBothWays(): Promise<Awaited<ReturnType<typeof runCli>>> {
  await anchoredHead();
  const key = (await runCli(['engine', 'log', 'key', '--json'], env)).json().public_key.hex as string;
  const [here, there] = await Promise.all([
    runCli(['engine', 'audit-log', 'verify', '--public-key', key, '--json'], env),
    runCli(['engine', 'audit-log', 'verify', '--url', server.url, '--token', ownerToken, '--public-key', key, '--json'], nowhere),
  ]);
  expect(there.code, describeRun(there)).toBe(here.code);
  expect(there.json()).toEqual(here.json());
  return there;
}

describe('engine audit-log', () => {
  it("lists the CLI's own admin actions with the operator as actor, filtered like the API", async () => {
    const boot = await runCli(['engine', 'tokens', 'bootstrap', '--json'], env);
    expect(boot.code, describeRun(boot)).toBe(0);
    ownerToken = boot.json().token;
    const on = await runCli(['engine', 'shadow', 'on', '--reason', 'policy 1.2 dry run'], env);
    expect(on.code, describeRun(on)).toBe(0);

    const listed = await runCli(['engine', 'audit-log', '--json'], env);
    expect(listed.code, describeRun(listed)).toBe(0);
    const page = listed.json();
    expect(page.entries.map((e: { action: string }) => e.action)).toEqual(['shadow.enable', 'token.issue']);
    expect(page.entries[0].actor).toMatch(/^cli:/);
    expect(page.entries[1]).toMatchObject({ actor: expect.stringMatching(/^cli:/), target_id: boot.json().token_id, details: { role: 'owner' } });
    expect(listed.stdout).not.toContain(boot.json().token);

    const filtered = await runCli(['engine', 'audit-log', '--action', 'token.issue', '--from', '2020-01-01', '--json'], env);
    expect(filtered.json().entries.map((e: { action: string }) => e.action)).toEqual(['token.issue']);
    const table = await runCli(['engine', 'audit-log'], env);
    expect(table.stdout).toMatch(/shadow\.enable\s+cli:/);

    const bad = await runCli(['engine', 'audit-log', '--limit', '1001', '--action', 'token.steal'], env);
    expect(bad.code, describeRun(bad)).toBe(2);
    expect(bad.stderr).toContain('--limit');
    expect(bad.stderr).toContain('--action');
  }, 120_000);

  it('verify exits 0 on an intact chain and 5 naming the first broken link after tampering', async () => {
    for (let i = 0; i < 5; i++) await appendAudit(store.sql, { actor: 'test', action: 'reconcile', target_id: null, details: { run: i } });
    const ok = await runCli(['engine', 'audit-log', 'verify', '--json'], env);
    expect(ok.code, describeRun(ok)).toBe(0);
    expect(ok.json()).toMatchObject({ valid: true, entries: 7, broken: null });
    // Remotely, in pages of 1,000 newest first: the same answer (1,100 entries make two pages).
    for (let i = 0; i < 1100; i += 100) {
      await Promise.all(
        Array.from({ length: 100 }, (_, j) => appendAudit(store.sql, { actor: 'test', action: 'reconcile', target_id: null, details: { bulk: i + j } })),
      );
    }
    expect((await verifyBothWays()).json()).toMatchObject({ valid: true, entries: 1107 });
    const [third] = await store.sql<Array<{ id: string }>>`select id from audit_log order by seq offset 2 limit 1`;

    // What an intruder with the table owner's rights could do: switch the trigger off, edit, switch it on.
    await store.sql`alter table audit_log disable trigger audit_log_no_update_delete`;
    await store.sql`update audit_log set details = '{"run": 99}' where id = ${third!.id}`;
    await store.sql`alter table audit_log enable trigger audit_log_no_update_delete`;

    const broken = await runCli(['engine', 'audit-log', 'verify'], env);
    expect(broken.code, describeRun(broken)).toBe(5);
    expect(broken.stderr).toContain('audit_chain_broken');
    expect(broken.stderr).toContain(`entry 3 (id ${third!.id}`);
    expect(broken.stderr).toMatch(/entry_hash .* is not the SHA-256/);
    const json = await runCli(['engine', 'audit-log', 'verify', '--json'], env);
    expect(json.code).toBe(5);
    expect(json.json()).toMatchObject({ error: { code: 'audit_chain_broken', exit: 5 } });
    expect((await verifyBothWays()).json().error.detail).toContain(`entry 3 (id ${third!.id}`);

    // Removing an entry breaks the link of the one after it.
    await store.sql`alter table audit_log disable trigger audit_log_no_update_delete`;
    await store.sql`update audit_log set details = '{"run": 0}' where id = ${third!.id}`;
    const [second] = await store.sql<Array<{ id: string }>>`select id from audit_log order by seq offset 1 limit 1`;
    await store.sql`delete from audit_log where id = ${second!.id}`;
    await store.sql`alter table audit_log enable trigger audit_log_no_update_delete`;
    const gap = await runCli(['engine', 'audit-log', 'verify'], env);
    expect(gap.code, describeRun(gap)).toBe(5);
    expect(gap.stderr).toContain(`entry 2 (id ${third!.id}`);
    expect(gap.stderr).toMatch(/prev_hash .* is not the entry_hash/);
    await verifyBothWays();
  }, 120_000);
});
