/**
 * The audit chain's tail cannot be cut unseen: signed checkpoints of its head (src/engine/audit/anchor.ts),
 * `tradeseal engine audit-log checkpoint` and `… audit-log verify` against a real store, and a real server that
 * anchors by itself. Entries are cut as an intruder with the table owner's rights would: raw SQL with the
 * append-only triggers switched off. Each scenario has a database of its own.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { configWith } from '../../src/core/config.js';
import { generateKeyPair } from '../../src/core/crypto/ed25519.js';
import { appendAudit } from '../../src/engine/audit/append.js';
import { startServer, type RunningServer } from '../../src/http/server.js';
import { cliEnv, describeRun, runCli, tempHome, type CliEnv, type CliResult } from '../helpers/cli.js';
import { testStore, type TestStore } from '../helpers/db.js';

const home = tempHome();
const opened: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  for (const o of opened.reverse()) await o.close();
});

interface Scenario {
  store: TestStore;
  env: CliEnv;
  cli(...args: string[]): Promise<CliResult>;
  /** Appends `n` entries; returns their ids, oldest first. */
  append(n: number): Promise<string[]>;
  /** The ids of the chain, oldest first. */
  ids(): Promise<string[]>;
  /** Deletes every entry after the `keep`-th, as an intruder would. */
  cutTo(keep: number): Promise<void>;
  /** Deletes the checkpoints of more than `size` entries, as an intruder would. */
  dropCheckpointsAbove(size: number): Promise<void>;
  publicKey(): Promise<string>;
}

async function scenario(): Promise<Scenario> {
  const store = await testStore();
  opened.push(store);
  const env = cliEnv(home, store.url);
  const cli = (...args: string[]): Promise<CliResult> => runCli(['engine', 'audit-log', ...args], env);
  let n = 0;
  const ids = async (): Promise<string[]> => (await store.sql<Array<{ id: string }>>`select id from audit_log order by seq`).map((r) => r.id);
  return {
    store,
    env,
    cli,
    ids,
    async append(count) {
      const out: string[] = [];
      for (let i = 0; i < count; i++) out.push((await appendAudit(store.sql, { actor: 'test', action: 'reconcile', target_id: null, details: { n: n++ } })).id);
      return out;
    },
    async cutTo(keep) {
      await store.sql`alter table audit_log disable trigger audit_log_no_update_delete`;
      await store.sql`delete from audit_log where seq > (select seq from audit_log order by seq offset ${keep - 1} limit 1)`;
      await store.sql`alter table audit_log enable trigger audit_log_no_update_delete`;
    },
    async dropCheckpointsAbove(size) {
      await store.sql`alter table audit_checkpoints disable trigger audit_checkpoints_no_update_delete`;
      await store.sql`delete from audit_checkpoints where size > ${size}`;
      await store.sql`alter table audit_checkpoints enable trigger audit_checkpoints_no_update_delete`;
    },
    async publicKey() {
      const key = await runCli(['engine', 'log', 'key', '--json'], env);
      expect(key.code, describeRun(key)).toBe(0);
      return key.json().public_key.hex as string;
    },
  };
}

/** `engine audit-log checkpoint --json`, kept in a file; the checkpoint. */
async function keep(s: Scenario, file: string): Promise<{ size: number; entry_id: string; entry_hash: string }> {
  const run = await s.cli('checkpoint', '--json');
  expect(run.code, describeRun(run)).toBe(0);
  fs.writeFileSync(path.join(home, file), run.stdout);
  return run.json();
}

describe('engine audit-log verify with checkpoints', () => {
  it('an intact chain verifies, anchored up to the newest checkpoint, the entries after it counted as not yet anchored', async () => {
    const s = await scenario();
    const first = await s.append(5);
    const kept = await keep(s, 'intact.json');
    expect(kept).toMatchObject({ size: 5, entry_id: first[4] });
    await s.append(3);

    const ok = await s.cli('verify', '--json');
    expect(ok.code, describeRun(ok)).toBe(0);
    expect(ok.json()).toMatchObject({
      valid: true,
      entries: 8,
      broken: null,
      anchored: 5,
      unanchored: 3,
      kept: null,
      anchor: { checkpoint: { size: 5, entry_id: first[4] }, signature_verified: true },
    });
    const text = await s.cli('verify');
    expect(text.stdout).toContain(`anchored: entry 5 (id ${first[4]})`);
    expect(text.stdout).toContain('not yet anchored: 3 entries after entry 5');

    // Signing one now anchors them all; the kept one still holds, checked with the key given.
    expect((await s.cli('checkpoint', '--json')).json()).toMatchObject({ size: 8 });
    const all = await s.cli('verify', '--checkpoint', path.join(home, 'intact.json'), '--public-key', await s.publicKey(), '--json');
    expect(all.code, describeRun(all)).toBe(0);
    expect(all.json()).toMatchObject({
      entries: 8,
      anchored: 8,
      unanchored: 0,
      anchor: { checkpoint: { size: 8 } },
      kept: { checkpoint: { size: 5 }, signature_verified: true },
    });
  }, 120_000);

  it("cutting anchored entries off the chain's end fails verify, naming the last anchored entry that is missing", async () => {
    const s = await scenario();
    const ids = await s.append(8);
    await keep(s, 'cut.json');
    await s.cutTo(6);

    const cut = await s.cli('verify');
    expect(cut.code, describeRun(cut)).toBe(5);
    expect(cut.stderr).toContain('audit_chain_broken');
    expect(cut.stderr).toContain(`the chain ends at entry 6, but entry 8 (id ${ids[7]}`);
    expect(cut.stderr).toContain('entries 7 to 8 were cut off its end');
    const json = await s.cli('verify', '--json');
    expect(json.code).toBe(5);
    expect(json.json()).toMatchObject({ error: { code: 'audit_chain_broken', exit: 5 } });
  }, 120_000);

  it('a kept checkpoint proves a cut even when the intruder also deleted the newer checkpoints', async () => {
    const s = await scenario();
    const ids = await s.append(2);
    await keep(s, 'two.json');
    ids.push(...(await s.append(4)));
    const kept = await keep(s, 'six.json');
    ids.push(...(await s.append(2)));
    await keep(s, 'eight.json');

    // Cut to 4 entries and delete the checkpoints of 6 and 8: the store's own checkpoints no longer show it.
    await s.cutTo(4);
    await s.dropCheckpointsAbove(2);
    const unseen = await s.cli('verify', '--json');
    expect(unseen.code, describeRun(unseen)).toBe(0);
    expect(unseen.json()).toMatchObject({ entries: 4, anchored: 2, unanchored: 2 });

    const key = await s.publicKey();
    const seen = await s.cli('verify', '--checkpoint', path.join(home, 'six.json'), '--public-key', key);
    expect(seen.code, describeRun(seen)).toBe(5);
    expect(seen.stderr).toContain('audit_chain_broken');
    expect(seen.stderr).toContain(`the chain ends at entry 4, but entry 6 (id ${ids[5]}, entry_hash ${kept.entry_hash}), which the kept checkpoint signed at`);
    expect(seen.stderr).toContain('entries 5 to 6 were cut off its end');

    // The kept checkpoint must be the log's: altered, or checked with another key, it is refused.
    const altered = path.join(home, 'altered.json');
    fs.writeFileSync(altered, JSON.stringify({ ...kept, size: 4, entry_id: ids[3] }));
    const forged = await s.cli('verify', '--checkpoint', altered, '--public-key', key);
    expect(forged.code, describeRun(forged)).toBe(5);
    expect(forged.stderr).toContain('the kept checkpoint, of entry 4');
    expect(forged.stderr).toContain('its Ed25519 signature does not verify');
    const otherKey = await s.cli(
      'verify',
      '--checkpoint',
      path.join(home, 'two.json'),
      '--public-key',
      Buffer.from(generateKeyPair().publicKey).toString('hex'),
    );
    expect(otherKey.code, describeRun(otherKey)).toBe(5);
    expect(otherKey.stderr).toMatch(/names key [0-9a-f]{64}, not the key/);

    fs.writeFileSync(path.join(home, 'bad.json'), '{"size": "six"}');
    const bad = await s.cli('verify', '--checkpoint', path.join(home, 'bad.json'));
    expect(bad.code, describeRun(bad)).toBe(2);
    expect(bad.stderr).toContain('is not a signed checkpoint: size must be a positive integer');
  }, 120_000);

  it('a server anchors the chain within a second of its growth, serves the newest checkpoint, and a remote verify sees a cut', async () => {
    const s = await scenario();
    const server: RunningServer = await startServer(configWith({ databaseUrl: s.store.url, logLevel: 'silent', port: 0 }), { services: ['engine'] });
    opened.push(server);
    const boot = await runCli(['engine', 'tokens', 'bootstrap', '--json'], s.env);
    expect(boot.code, describeRun(boot)).toBe(0);
    const token = boot.json().token as string;
    const nowhere = cliEnv(home, 'postgres://nobody@127.0.0.1:1/none');
    const remote = ['--url', server.url, '--token', token];

    /** The server's newest checkpoint once it anchors `size` entries; fails after 5 s. */
    const anchoredAt = async (size: number): Promise<Record<string, unknown>> => {
      const deadline = Date.now() + 5000;
      for (;;) {
        const res = await fetch(`${server.url}/engine/admin/audit-log/checkpoint`, { headers: { authorization: `Bearer ${token}` } });
        const body = (await res.json()) as Record<string, unknown>;
        if (res.status === 200 && body.size === size) return body;
        if (Date.now() > deadline) throw new Error(`the server did not anchor ${size} entries: ${res.status} ${JSON.stringify(body)}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    await anchoredAt(1);
    const ids = [...(await s.ids()), ...(await s.append(6))];
    const served = await anchoredAt(7);
    expect(served).toMatchObject({ entry_id: ids[6] });
    const fetched = await runCli(['engine', 'audit-log', 'checkpoint', ...remote, '--json'], nowhere);
    expect(fetched.code, describeRun(fetched)).toBe(0);
    expect(fetched.json()).toEqual(served);

    const key = await s.publicKey();
    const ok = await runCli(['engine', 'audit-log', 'verify', ...remote, '--public-key', key, '--json'], nowhere);
    expect(ok.code, describeRun(ok)).toBe(0);
    expect(ok.json()).toMatchObject({ entries: 7, anchored: 7, unanchored: 0, anchor: { signature_verified: true } });

    await s.cutTo(5);
    const there = await runCli(['engine', 'audit-log', 'verify', ...remote, '--public-key', key], nowhere);
    const here = await s.cli('verify', '--public-key', key);
    expect(there.code, describeRun(there)).toBe(5);
    expect(there.stderr).toContain(`the chain ends at entry 5, but entry 7 (id ${ids[6]}`);
    // The same answer on the store.
    expect(here.code, describeRun(here)).toBe(5);
    expect(here.stderr).toContain(there.stderr.split('\n').find((line) => line.includes('the chain ends at entry 5')));
  }, 120_000);
});
