/**
 * The heartbeat signing key (src/signals/signing-key.ts): REGIME_SIGNING_KEY wins and leaves the store alone;
 * otherwise one key is generated once and kept, however many processes race to create it; the CLI prints
 * its public key (`signals heartbeat-key`) and signs with it (`regime heartbeat`, both schemes).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPair, parsePublicKey, publicKeyFromSecret } from '../../src/core/crypto/ed25519.js';
import { heartbeatSignatureValid } from '../../src/engine/heartbeat/check.js';
import { publishManual } from '../../src/store/regime-broadcasts.js';
import { connect } from '../../src/store/driver.js';
import { SecretKeeper } from '../../src/secrets/stored-secret.js';
import { loadSigningKey, publicKeyForms, SIGNING_KEY_NAME, storedSigningKey } from '../../src/signals/signing-key.js';
import { cliEnv, runCli, tempHome } from '../helpers/cli.js';
import { testStore, type TestStore } from '../helpers/db.js';

const home = tempHome();
let store: TestStore;
beforeAll(async () => {
  store = await testStore({ max: 10 });
});
afterAll(async () => store?.close());

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

describe('loadSigningKey', () => {
  it('uses REGIME_SIGNING_KEY when it is set, and does not touch the store', async () => {
    const { secretKey, publicKey } = generateKeyPair();
    const key = await loadSigningKey(store.sql, { regimeSigningKey: secretKey });
    expect(key).toMatchObject({ source: 'REGIME_SIGNING_KEY', created: false });
    expect(hex(key.publicKey)).toBe(hex(publicKey));
    expect(await store.sql`select 1 from signal_service_secrets`).toHaveLength(0);
  });

  it('creates one stored key under a race of 24 callers on three connection pools (three processes), then keeps it', async () => {
    const pools = [store.sql, connect(store.url, { max: 4 }), connect(store.url, { max: 4 })];
    try {
      const results = await Promise.all(Array.from({ length: 24 }, (_, i) => storedSigningKey(pools[i % 3]!, new SecretKeeper(null))));
      expect(new Set(results.map((r) => hex(r.secretKey))).size).toBe(1);
      expect(results.filter((r) => r.created)).toHaveLength(1);
    } finally {
      await Promise.all(pools.slice(1).map((p) => p.end({ timeout: 5 })));
    }
    const [row] = await store.sql<Array<{ value: Buffer }>>`select value from signal_service_secrets where name = ${SIGNING_KEY_NAME}`;
    const again = await loadSigningKey(store.sql, { regimeSigningKey: null });
    expect(again).toMatchObject({ source: 'store', created: false });
    expect(hex(again.secretKey)).toBe(row!.value.toString('hex'));
    expect(hex(again.publicKey)).toBe(hex(publicKeyFromSecret(again.secretKey)));
  });

  it('renders the public key in each form REGIME_OPERATOR_PUBKEY reads', () => {
    const { publicKey } = generateKeyPair();
    const forms = publicKeyForms(publicKey);
    for (const text of [forms.hex, forms.base64, forms.pem]) expect(hex(parsePublicKey(text))).toBe(hex(publicKey));
  });
});

describe('the CLI', () => {
  it("signals heartbeat-key prints the stored key's public key; regime heartbeat signs with it in either scheme", async () => {
    const env = cliEnv(home, store.url, { REGIME_SIGNING_KEY: '' });
    const stored = await loadSigningKey(store.sql, { regimeSigningKey: null });
    const printed = await runCli(['signals', 'heartbeat-key', '--json'], env);
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.json()).toMatchObject({
      algorithm: 'Ed25519',
      source: 'store',
      created: false,
      public_key: publicKeyForms(stored.publicKey),
      env: `REGIME_OPERATOR_PUBKEY=${hex(stored.publicKey)}`,
    });

    await publishManual(store.sql, { date: '2024-01-02', regime: 'tightening', risk_score: 0.6, model_version: 'test', reason: 'test', published_by: 'test' });
    const [plain, jcs] = await Promise.all([runCli(['regime', 'heartbeat'], env), runCli(['regime', 'heartbeat', '--scheme', 'ed25519-jcs'], env)]);
    for (const [res, scheme] of [
      [plain, 'ed25519'],
      [jcs, 'ed25519-jcs'],
    ] as const) {
      expect(res.code, res.stderr).toBe(0);
      const hb = JSON.parse(res.stdout);
      expect(hb).toMatchObject({ regime_id: 2 });
      expect(hb.signature.startsWith(`${scheme}:`)).toBe(true);
      expect(await heartbeatSignatureValid(hb, stored.publicKey)).toBe(true);
    }
  });

  it('a fresh store: heartbeat-key creates the key and says so', async () => {
    const fresh = await testStore();
    try {
      const res = await runCli(['signals', 'heartbeat-key'], cliEnv(home, fresh.url, { REGIME_SIGNING_KEY: '' }));
      expect(res.code, res.stderr).toBe(0);
      const [row] = await fresh.sql<Array<{ value: Buffer }>>`select value from signal_service_secrets where name = ${SIGNING_KEY_NAME}`;
      const pub = hex(publicKeyFromSecret(new Uint8Array(row!.value)));
      expect(res.stdout).toContain('from the store (generated now)');
      expect(res.stdout).toContain(`export REGIME_OPERATOR_PUBKEY=${pub}`);
    } finally {
      await fresh.close();
    }
  });
});
