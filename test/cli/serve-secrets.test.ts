/**
 * `tradeseal serve` on a store that keeps its secrets in clear: without `KMS_PROVIDER` it says so at start, in
 * one warning naming each secret kept in clear (and what a copy of the store does with it); the first start
 * with a provider seals them all, and says nothing of the kind.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadLogKey } from '../../src/engine/store/log-key.js';
import { loadSigningKey } from '../../src/signals/signing-key.js';
import { loadTrackLogKey } from '../../src/signals/track/key.js';
import { cliEnv, REPO_ROOT, tempHome, type CliEnv } from '../helpers/cli.js';
import { builtCli, spawnEnv } from '../helpers/built-cli.js';
import { testStore, type TestStore } from '../helpers/db.js';
import { kmsEnv, masterKeyFile } from '../helpers/kms.js';

const home = tempHome();
const masterKey = masterKeyFile();
let store: TestStore;
const children: ChildProcessWithoutNullStreams[] = [];

beforeAll(async () => {
  store = await testStore();
  await loadSigningKey(store.sql, { regimeSigningKey: null });
  await loadLogKey(store.sql, { logSigningKey: null });
  await loadTrackLogKey(store.sql, { signalLogSigningKey: null });
  for (let i = 0; i < 2; i++) {
    const id = randomUUID();
    await store.sql`insert into signal_accounts (account_id, email, tier) values (${id}, ${`${id}@example.test`}, 'pro')`;
    // As a server without a provider stores one (and as every server did before providers sealed them).
    await store.sql`insert into signal_webhooks (account_id, url, secret) values (${id}, 'https://hooks.example.test/x', ${`whsec_${randomUUID()}`})`;
  }
});
afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  await store?.close();
});

/** Starts `serve` and resolves with everything it printed once it serves (or exits). */
function serveUntilListening(extra: CliEnv): Promise<{ output: string; child: ChildProcessWithoutNullStreams }> {
  const env = cliEnv(home, store.url, { LOG_LEVEL: 'silent', KMS_PROVIDER: undefined, KMS_MASTER_KEY_FILE: undefined, ...extra });
  const child = spawn(process.execPath, [builtCli(), 'serve', '--port', '0', '--workers', '1'], { cwd: REPO_ROOT, env: spawnEnv(env) });
  children.push(child);
  let output = '';
  return new Promise((resolve, reject) => {
    const feed = (chunk: Buffer): void => {
      output += chunk.toString();
      // The start warnings follow the line that says it serves; the health warning (no regime published) comes last.
      if (/tradeseal serving/.test(output) && /warning: .*regime/.test(output)) resolve({ output, child });
    };
    child.stdout.on('data', feed);
    child.stderr.on('data', feed);
    child.once('exit', (code) => reject(new Error(`serve exited (${code}): ${output}`)));
  });
}

async function stop(child: ChildProcessWithoutNullStreams): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

describe('tradeseal serve and the secrets the store keeps', () => {
  it('without KMS_PROVIDER warns once, naming each secret kept in clear; the first start with one seals them and does not', async () => {
    const plain = await serveUntilListening({});
    await stop(plain.child);
    const warnings = plain.output.split('\n').filter((l) => l.startsWith('warning: the store keeps'));
    expect(warnings, plain.output).toEqual([
      "warning: the store keeps the heartbeat signing key, the track-log signing key, the engine's transparency-log key and 2 webhook secrets in clear: " +
        "whoever holds a copy of it (a backup, a replica, a dump) can sign heartbeats the engines accept, sign heads of the engine's transparency log, " +
        'sign heads of the track log and sign webhook deliveries as this service; set KMS_PROVIDER to keep them sealed (docs/operations.md, "Secrets in the store")',
    ]);

    const sealed = await serveUntilListening(kmsEnv(masterKey));
    await stop(sealed.child);
    expect(sealed.output).not.toContain('the store keeps');
    const [counts] = await store.sql`
      select (select count(*) from signal_service_secrets where value is not null)::int + (select count(*) from log_signing_key where secret_key is not null)::int
           + (select count(*) from signal_webhooks where secret is not null)::int as clear,
             (select count(*) from signal_service_secrets where sealed is not null)::int + (select count(*) from log_signing_key where sealed is not null)::int
           + (select count(*) from signal_webhooks where secret_sealed is not null)::int as sealed`;
    expect(counts).toEqual({ clear: 0, sealed: 5 });
  }, 90_000);
});
