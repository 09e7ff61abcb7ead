/**
 * The local key-management provider and the engine's keyring: the master key file read and checked at
 * start (a clear `config_invalid` naming the file), data keys wrapped and unwrapped only for their agent
 * under their master key, a wrong master key refused at start, a store with wrapped keys refused by an
 * engine without a provider, and the in-process cache of unwrapped keys bounded.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWith } from '../../src/core/config.js';
import { createEngineContext } from '../../src/engine/context.js';
import { DataKeys } from '../../src/secrets/kms/data-keys.js';
import { dataKeysFrom } from '../../src/secrets/kms/from-config.js';
import { LocalKeyProvider } from '../../src/secrets/kms/local.js';
import { TradesealError } from '../../src/core/errors.js';
import { engineHarness, type EngineHarness } from '../helpers/engine.js';
import { kmsConfig, masterKeyFile } from '../helpers/kms.js';

/** The error `fn` throws (sync or async). */
async function failure(fn: () => unknown): Promise<TradesealError> {
  try {
    await fn();
  } catch (error) {
    if (error instanceof TradesealError) return error;
    throw error;
  }
  throw new Error('expected a failure');
}

describe('the master key file', () => {
  it('accepts 64 hex characters or base64 of 32 bytes, with a final newline', async () => {
    const key = randomBytes(32);
    const fromHex = LocalKeyProvider.fromFile(masterKeyFile(`${key.toString('hex')}\n`));
    const fromBase64 = LocalKeyProvider.fromFile(masterKeyFile(`${key.toString('base64')}\n`));
    expect(fromHex.keyId).toMatch(/^local:[0-9a-f]{16}$/);
    expect(fromBase64.keyId).toBe(fromHex.keyId);
    // The same key from either spelling unwraps what the other wrapped.
    const made = await fromHex.generateDataKey('agent-1');
    expect((await fromBase64.unwrap(made.wrapped, made.keyId, 'agent-1')).equals(made.plaintext)).toBe(true);
  });

  it.each([
    ['a short key', '00ff'],
    ['33 bytes', randomBytes(33).toString('hex')],
    ['a passphrase', 'correct horse battery staple'],
    ['an empty file', ''],
  ])('refuses %s with config_invalid naming the file, never echoing it', async (_what, contents) => {
    const file = masterKeyFile(contents);
    const e = await failure(() => LocalKeyProvider.fromFile(file));
    expect(e.code).toBe('config_invalid');
    expect(e.message).toContain(`KMS_MASTER_KEY_FILE=${file}`);
    expect(e.message).toContain('32-byte key');
    if (contents.length > 4) expect(e.message).not.toContain(contents);
  });

  it('refuses a missing file, naming it', async () => {
    const e = await failure(() => dataKeysFrom({ kmsProvider: 'local', kmsMasterKeyFile: '/nonexistent/master.key' }));
    expect(e.code).toBe('config_invalid');
    expect(e.message).toContain('KMS_MASTER_KEY_FILE=/nonexistent/master.key cannot be read (ENOENT)');
  });

  it('KMS_PROVIDER=local without KMS_MASTER_KEY_FILE is config_invalid; no provider is no keyring', async () => {
    const e = await failure(() => dataKeysFrom({ kmsProvider: 'local', kmsMasterKeyFile: null }));
    expect(e.code).toBe('config_invalid');
    expect(e.message).toContain('KMS_MASTER_KEY_FILE');
    expect(dataKeysFrom({ kmsProvider: null, kmsMasterKeyFile: null })).toBeNull();
    expect(configWith({}, { KMS_PROVIDER: 'local', KMS_MASTER_KEY_FILE: 'master.key' })).toMatchObject({
      kmsProvider: 'local',
      kmsMasterKeyFile: expect.stringMatching(/master\.key$/),
    });
    expect(() => configWith({}, { KMS_PROVIDER: 'vault' })).toThrow(/KMS_PROVIDER="vault" \(expected local\|aws\)/);
  });
});

describe('wrapping data keys', () => {
  it('a wrapped key unwraps only under its master key and for its agent', async () => {
    const provider = new LocalKeyProvider(randomBytes(32));
    const made = await provider.generateDataKey('agent-a');
    expect(made.plaintext).toHaveLength(32);
    expect(made.wrapped.includes(made.plaintext)).toBe(false);
    expect((await provider.unwrap(made.wrapped, made.keyId, 'agent-a')).equals(made.plaintext)).toBe(true);
    await expect(provider.unwrap(made.wrapped, made.keyId, 'agent-b')).rejects.toThrow(/authentication tag/);
    const other = new LocalKeyProvider(randomBytes(32));
    await expect(other.unwrap(made.wrapped, made.keyId, 'agent-a')).rejects.toThrow(/wrapped under master key local:/);
    // Even when told the key id it expects, another master key cannot open it.
    await expect(other.unwrap(made.wrapped, other.keyId, 'agent-a')).rejects.toThrow(/authentication tag/);
  });
});

describe('the keyring against a store', () => {
  let h: EngineHarness;
  const file = masterKeyFile();
  beforeAll(async () => {
    h = await engineHarness({ config: kmsConfig(file) });
    await h.publishRegime('expansion');
    const agent = await h.registerAgent({ name: 'Keyring Desk' });
    const res = await h.call('POST', '/engine/authorize', h.order(agent.agent_id, { regulatory: { mifid_decision_maker: 'K. Ring' } }), agent.token);
    expect(res.statusCode, res.body).toBe(200);
  });
  afterAll(async () => h?.close());

  it('an engine with another master key refuses to start, naming the file', async () => {
    const wrong = masterKeyFile();
    const e = await failure(() => createEngineContext(configWith({ ...h.config, ...kmsConfig(wrong) }), h.store.sql, { policy: h.ctx.policy }));
    expect(e.code).toBe('config_invalid');
    expect(e.message).toContain(`KMS_MASTER_KEY_FILE=${wrong}`);
    expect(e.message).toMatch(/cannot be unwrapped/);
  });

  it('an engine without a provider refuses to start on a store holding wrapped keys', async () => {
    const e = await failure(() =>
      createEngineContext(configWith({ ...h.config, kmsProvider: null, kmsMasterKeyFile: null }), h.store.sql, { policy: h.ctx.policy }),
    );
    expect(e.code).toBe('config_invalid');
    expect(e.message).toContain('KMS_PROVIDER is unset');
    expect(e.hint).toContain('KMS_PROVIDER=local');
  });

  it('the right master key starts, and reads what the first engine wrote', async () => {
    const ctx = await createEngineContext(configWith({ ...h.config, ...kmsConfig(file) }), h.store.sql, { policy: h.ctx.policy });
    try {
      const [row] = await h.store.sql`select agent_id from agent_data_keys limit 1`;
      expect(await ctx.keys!.forReading(h.store.sql, row!.agent_id as string)).toHaveLength(32);
    } finally {
      ctx.state.stop();
    }
  });

  it('makes one key per agent, even when asked concurrently, and caches at most maxEntries keys', async () => {
    const keys = new DataKeys(LocalKeyProvider.fromFile(file), { maxEntries: 3 });
    // Eight keyrings (as eight processes would) race for each of 20 new agents' first key: the losers of an
    // insert must read the winner's key, also when it was committed while their own statement ran.
    const rivals = Array.from({ length: 8 }, () => new DataKeys(LocalKeyProvider.fromFile(file)));
    for (let round = 0; round < 20; round++) {
      const contested = randomUUID();
      const got = await Promise.all(rivals.map((r) => r.forWriting(h.store.sql, contested)));
      for (const k of got) expect(k!.equals(got[0]!)).toBe(true);
    }
    const agentId = randomUUID();
    const made = await Promise.all(Array.from({ length: 8 }, () => keys.forWriting(h.store.sql, agentId)));
    for (const k of made) expect(k!.equals(made[0]!)).toBe(true);
    const [count] = await h.store.sql`select count(*)::int as n from agent_data_keys where agent_id = ${agentId}`;
    expect(count!.n).toBe(1);
    // A fresh keyring (another process) unwraps the same key from the store.
    const elsewhere = new DataKeys(LocalKeyProvider.fromFile(file));
    expect((await elsewhere.forReading(h.store.sql, agentId))!.equals(made[0]!)).toBe(true);

    for (let i = 0; i < 5; i++) await keys.forWriting(h.store.sql, randomUUID());
    expect(keys.cachedCount).toBe(3);
    expect(await keys.forReading(h.store.sql, randomUUID())).toBeNull();
  });

  it('a cached key is dropped after its time to live', async () => {
    let now = 0;
    const keys = new DataKeys(LocalKeyProvider.fromFile(file), { ttlMs: 1000, now: () => now });
    const a = randomUUID();
    const key = await keys.forWriting(h.store.sql, a);
    now = 999;
    expect(await keys.forReading(h.store.sql, a)).toBe(key);
    now = 1001;
    await keys.forWriting(h.store.sql, randomUUID());
    expect(keys.cachedCount).toBe(1);
    // Read again from the store (unwrapped anew): the same key, another copy.
    const again = await keys.forReading(h.store.sql, a);
    expect(again).not.toBe(key);
    expect(again!.equals(key!)).toBe(true);
  });
});
