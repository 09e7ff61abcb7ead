/**
 * What a copy of the store gives away when a key-management provider is configured: nothing usable. For each
 * provider (local, and AWS KMS run by moto), a server starts on a copy of the shared published history (whose
 * track-log key was made in clear, before any provider: this start seals it) and a scenario uses every secret
 * the store keeps: the pipeline publishes a month (the track log signed), the signal service signs a heartbeat
 * that authorizes an order on the engine, the trace is sequenced into the engine's transparency log, a webhook is
 * registered, and a registration code is issued and read from the outbox. Then `pg_dump` of the database holds:
 *
 * - none of the secrets' bytes (the three signing keys, the verification-code key, the webhook secret), raw,
 *   hex, base64 or base64url;
 * - no 32-byte string, among every byte string it spells, from which any of the three public keys in use
 *   derives; and a heartbeat signed with any 32 bytes of the heartbeat key's row is refused by the engine, after
 *   which the service's own heartbeat still authorizes (a forged one no longer takes the agent's sequence);
 * - no code: all 10^6 codes tried against the dumped code hash under the old plain SHA-256 form match none,
 *   while the same search keyed with the real key (which only the provider opens) finds the code mailed.
 */
import { createHmac, createPrivateKey, createPublicKey, randomBytes, randomUUID, hash } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { runPipeline } from '../../src/signals/publish/run.js';
import { configWith, type Config } from '../../src/core/config.js';
import { sign } from '../../src/core/crypto/ed25519.js';
import { formatSignature, heartbeatMessage } from '../../src/core/records/heartbeat.js';
import type { KeySettings } from '../../src/secrets/kms/from-config.js';
import { verifyTreeHeadSignature, type SignedTreeHead } from '../../src/core/log/tree-head.js';
import { loadLogKey } from '../../src/engine/store/log-key.js';
import { startServer, type RunningServer } from '../../src/http/server.js';
import { LOG_KEY_PLACE, readLogKeySecret, readServiceSecret, serviceSecretPlace } from '../../src/secrets/places.js';
import { secretKeeperFrom } from '../../src/secrets/stored-secret.js';
import { readOutbox } from '../../src/signals/mail/outbox.js';
import { loadSigningKey, SIGNING_KEY_NAME } from '../../src/signals/signing-key.js';
import { issueKey } from '../../src/signals/store/keys.js';
import { loadTrackLogKey, TRACK_KEY_NAME } from '../../src/signals/track/key.js';
import { verificationCodeKey } from '../../src/signals/verification-key.js';
import { testStore, type TestStore } from '../helpers/db.js';
import { dumpDatabase } from '../helpers/dump.js';
import { byteStringsOf, secretFoundIn, tableOf, windows } from '../helpers/dump-secrets.js';
import { kmsConfig, masterKeyFile } from '../helpers/kms.js';
import { macroDataThrough } from '../helpers/macro-data.js';
import { motoForFile } from '../helpers/moto.js';

const moto = motoForFile();
const localMasterKey = masterKeyFile();
const OWNER = `tse_${randomBytes(32).toString('base64url')}`;
const MODEL_HASH = 'c'.repeat(64);

/** The Ed25519 public key of a 32-byte seed, through node:crypto (fast enough to try every string of a dump). */
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const publicOf = (seed: Buffer): string =>
  createPublicKey(createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' }))
    .export({ format: 'der', type: 'spki' })
    .subarray(12)
    .toString('hex');

const codeMessage = (email: string, code: string): string => `tradeseal.signals.verification\n${email}\n${code}`;
const allCodes = function* (): Generator<string> {
  for (let i = 0; i < 1_000_000; i++) yield String(i).padStart(6, '0');
};

interface Scenario {
  store: TestStore;
  server: RunningServer;
  config: Config;
  dump: string;
  /** Each secret's bytes, by name. */
  secrets: Record<string, Uint8Array>;
  /** The public keys in use, hex, by name. */
  publicKeys: Record<string, string>;
  email: string;
  code: string;
  agent: { agent_id: string; token: string };
  heartbeat: () => Promise<Record<string, unknown>>;
  authorize: (heartbeat: unknown) => Promise<{ status: number; body: any }>;
}

const open: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

async function scenario(settings: KeySettings): Promise<Scenario> {
  const store = await testStore({ history: 'published', max: 6 });
  open.push(() => store.close());
  // Made by the fixture's pipeline run without a provider: in clear until a start with one.
  const [before] = await store.sql`select value is not null as clear from signal_service_secrets where name = ${TRACK_KEY_NAME}`;
  expect(before).toEqual({ clear: true });

  const base = configWith({
    ...settings,
    databaseUrl: store.url,
    logLevel: 'silent',
    port: 0,
    host: '127.0.0.1',
    engineOwnerToken: OWNER,
    webhookAllowPrivate: true,
    layer2Enabled: true,
  });
  const heartbeatKey = await loadSigningKey(store.sql, base);
  const config = configWith({ ...base, regimeOperatorPubkey: heartbeatKey.publicKey });
  const server = await startServer(config, { services: ['engine', 'signals'] });
  open.push(() => server.close());
  const call = async (method: string, path: string, o: { body?: unknown; token?: string; key?: string } = {}): Promise<{ status: number; body: any }> => {
    const headers: Record<string, string> = {};
    if (o.body !== undefined) headers['content-type'] = 'application/json';
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    if (o.key) headers['x-signals-key'] = o.key;
    const res = await fetch(`${server.url}${path}`, { method, headers, ...(o.body === undefined ? {} : { body: JSON.stringify(o.body) }) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const account = async (tier: string): Promise<string> => {
    const id = randomUUID();
    await store.sql`insert into signal_accounts (account_id, email, tier) values (${id}, ${`${id}@example.test`}, ${tier})`;
    return (await issueKey(store.sql, id)).api_key;
  };

  // The track log: a month published on top of the history, signed with the key this start sealed.
  const trackKey = await loadTrackLogKey(store.sql, config);
  await runPipeline(store.sql, { dataDir: await macroDataThrough('2009-04-30'), asOf: null, seed: 7, keySettings: config });
  const head = (await call('GET', '/v1/log/head')).body as SignedTreeHead;
  expect(head.tree_size).toBeGreaterThan(0);
  expect(verifyTreeHeadSignature(head, trackKey.publicKey)).toEqual({ valid: true });

  // The heartbeat key: a heartbeat of the signal service authorizes an order on the engine.
  expect((await call('POST', '/engine/admin/regime', { token: OWNER, body: { regime: 'expansion', risk_score: 0.2, reason: 'test' } })).status).toBe(201);
  const reg = await call('POST', '/engine/admin/agents', {
    token: OWNER,
    body: { name: 'Dump Desk', max_notional: 200_000, models: [{ model_id: 'alpha-7', model_hash_hex: MODEL_HASH }] },
  });
  const tok = await call('POST', '/engine/admin/tokens', { token: OWNER, body: { client_name: 'agent', agent_ids: [reg.body.agent_id] } });
  const agent = { agent_id: reg.body.agent_id as string, token: tok.body.token as string };
  const sidecar = await account('engine_sidecar');
  const heartbeat = async (): Promise<Record<string, unknown>> => {
    const res = await call('GET', '/v1/engine/heartbeat', { key: sidecar });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };
  const authorize = (hb: unknown) =>
    call('POST', '/engine/authorize', {
      token: agent.token,
      body: {
        agent_id: agent.agent_id,
        model_hash_hex: MODEL_HASH,
        model_id: 'alpha-7',
        prompt_version: 'p-3',
        feature_schema_id: 'fs-1',
        hyperparameter_checksum: 'h-9',
        action: 'Long',
        asset: 'AAPL',
        order_type: 'Limit',
        venue_id: 'XNAS',
        quantity: 100,
        limit_price: 190,
        notional: 19_000,
        client_order_id: randomUUID(),
        agent_valid_time: Date.now(),
        heartbeat: hb,
      },
    });
  const first = await authorize(await heartbeat());
  expect(first.status, JSON.stringify(first.body)).toBe(200);

  // The engine's log key: the server's sequencer logs the trace under a signed head.
  const logKey = await loadLogKey(store.sql, config);
  for (const started = Date.now(); ; await new Promise((r) => setTimeout(r, 50))) {
    const proof = await call('GET', `/engine/log/proof/${first.body.trace_id}`, { token: OWNER });
    if (proof.status === 200) break;
    if (Date.now() - started > 10_000) throw new Error(`the trace was not logged: ${JSON.stringify(proof.body)}`);
  }
  const logHead = (await call('GET', '/engine/log/head', { token: OWNER })).body as SignedTreeHead;
  expect(verifyTreeHeadSignature(logHead, logKey.publicKey)).toEqual({ valid: true });

  // A webhook, and a registration code (mailed to the outbox, read once by the operator as the mail's delivery).
  const hook = await call('PUT', '/v1/webhook', { key: await account('pro'), body: { url: 'http://127.0.0.1:9/hook' } });
  expect(hook.status, JSON.stringify(hook.body)).toBe(200);
  const email = `dump-${randomUUID().slice(0, 8)}@example.test`;
  expect((await call('POST', '/v1/auth/register', { body: { email } })).status).toBe(202);
  const [mail] = await readOutbox(store.sql, { limit: 1, recipient: email, retentionHours: 72 });
  const code = /verification code is (\d{6})\./.exec(mail!.body)![1]!;

  // The secrets, as the server holds them (opened through the provider).
  const keeper = secretKeeperFrom(config);
  const webhookSecret = hook.body.secret as string;
  const secrets: Record<string, Uint8Array> = {
    'heartbeat key': heartbeatKey.secretKey,
    'transparency-log key': await keeper.reveal(LOG_KEY_PLACE, (await readLogKeySecret(store.sql))!),
    'track-log key': await keeper.reveal(serviceSecretPlace(TRACK_KEY_NAME), (await readServiceSecret(store.sql, TRACK_KEY_NAME))!),
    'verification-code key': await verificationCodeKey(store.sql, keeper),
    'webhook secret': Buffer.from(webhookSecret, 'utf8'),
    "webhook secret's random bytes": Buffer.from(webhookSecret.slice('whsec_'.length), 'base64url'),
  };
  const publicKeys = {
    heartbeat: Buffer.from(heartbeatKey.publicKey).toString('hex'),
    'transparency log': Buffer.from(logKey.publicKey).toString('hex'),
    'track log': Buffer.from(trackKey.publicKey).toString('hex'),
  };
  return { store, server, config, dump: await dumpDatabase(store), secrets, publicKeys, email, code, agent, heartbeat, authorize };
}

describe.each([
  ['local', () => kmsConfig(localMasterKey)],
  ['aws (moto)', () => moto().settings()],
] as const)('a dump of the store with KMS_PROVIDER=%s', (_name, settingsOf) => {
  let s: Scenario;
  it("holds none of the secrets' bytes in any encoding, and every one of them is sealed", async () => {
    s = await scenario(settingsOf());
    expect(s.dump).toContain(s.email);
    for (const [name, bytes] of Object.entries(s.secrets)) expect(secretFoundIn(s.dump, bytes), name).toEqual([]);
    expect(await s.store.sql`select name from signal_service_secrets where value is not null`).toEqual([]);
    expect(await s.store.sql`select 1 from log_signing_key where secret_key is not null`).toEqual([]);
    expect(await s.store.sql`select 1 from signal_webhooks where secret is not null`).toEqual([]);
  }, 120_000);

  it("holds no key a signature can be made with: no value of it, nor any 32 bytes of the rows that keep secrets, derives a public key in use; a heartbeat forged from the key's row is refused", async () => {
    // Every 32-byte value the dump spells (a key stored as a column's value), and every 32 bytes of the rows that
    // keep secrets (a key inside a sealed value). Every window of the whole dump, 1.3 million, would take ten
    // minutes of this machine at 0.5 ms a key; the first test already searched the whole dump for the keys' bytes.
    const candidates = [
      ...byteStringsOf(s.dump).filter((b) => b.length === 32),
      ...['public.signal_service_secrets', 'public.log_signing_key', 'public.signal_webhooks']
        .flatMap((t) => byteStringsOf(tableOf(s.dump, t)))
        .flatMap((b) => [...windows(b)]),
    ];
    const wanted = new Map(Object.entries(s.publicKeys).map(([name, hex]) => [hex, name]));
    for (const seed of candidates) {
      const found = wanted.get(publicOf(seed));
      if (found) throw new Error(`the ${found} key's seed is in the dump`);
    }
    expect(candidates.length).toBeGreaterThan(1000);

    // The probe's attack: a heartbeat signed with what the dump holds of the heartbeat key (every 32 bytes of its
    // row), with the highest sequence number, refused every time; the service's own heartbeat then authorizes.
    const row = tableOf(s.dump, 'public.signal_service_secrets')
      .split('\n')
      .find((l) => l.startsWith(`${SIGNING_KEY_NAME}\t`))!;
    const forgeries = byteStringsOf(row).flatMap((b) => [...windows(b)]);
    const genuine = await s.heartbeat();
    for (const seed of forgeries) {
      const fields = { ...genuine, sequence_id: Number.MAX_SAFE_INTEGER } as { sequence_id: number; timestamp_ms: number; regime_id: number; mta_ref?: string };
      const forged = { ...fields, signature: formatSignature('ed25519', sign(heartbeatMessage(fields, 'ed25519'), seed)) };
      const res = await s.authorize(forged);
      expect([res.status, res.body.code]).toEqual([403, 'heartbeat_signature_invalid']);
    }
    expect(forgeries.length).toBeGreaterThan(20);
    const after = await s.authorize(await s.heartbeat());
    expect(after.status, JSON.stringify(after.body)).toBe(200);
  }, 120_000);

  it('holds no code: all 10^6 codes tried against the dumped hash match none; keyed with the real key, the search finds the code', async () => {
    // COPY public.signal_verifications (email, code_hash, …): the row of the address.
    const table = s.dump.slice(s.dump.indexOf('COPY public.signal_verifications ('));
    const line = table
      .slice(0, table.indexOf('\n\\.'))
      .split('\n')
      .find((l) => l.startsWith(`${s.email}\t`));
    expect(line, 'the pending verification in the dump').toBeDefined();
    const stored = line!.split('\t')[1]!;
    const digest = stored.slice(stored.lastIndexOf(':') + 1);
    const matchesUnder = (hash: (code: string) => string): string[] => {
      const found: string[] = [];
      for (const code of allCodes()) if (hash(code) === digest) found.push(code);
      return found;
    };
    // The old form: SHA-256 of the same text, which a copy of the table let anyone search in seconds.
    expect(matchesUnder((code) => hash('sha256', codeMessage(s.email, code), 'hex'))).toEqual([]);
    // The key is what the search lacks: with it, every code is tried in seconds too and the mailed one found.
    expect(stored).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    const key = s.secrets['verification-code key']!;
    expect(matchesUnder((code) => createHmac('sha256', key).update(codeMessage(s.email, code)).digest('hex'))).toEqual([s.code]);
  }, 120_000);
});
