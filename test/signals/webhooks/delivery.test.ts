/**
 * Delivering webhooks, against a real store and a real HTTP receiver on 127.0.0.1 (so WEBHOOK_ALLOW_PRIVATE
 * is on): a transition reaches the receiver exactly once even when it fails the first attempts; the
 * signature verifies; a delivery survives a restart of the server, and a worker stopped mid-attempt hands
 * it back; two workers never deliver one delivery twice; the retry schedule, the last attempt, leases, and
 * the guard checked again at delivery time.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SecretKeeper } from '../../../src/secrets/stored-secret.js';
import { configWith } from '../../../src/core/config.js';
import { publishManual } from '../../../src/store/regime-broadcasts.js';
import type { Regime } from '../../../src/core/vocabulary.js';
import { startServer } from '../../../src/http/server.js';
import { newWebhookSecret, verifySignature } from '../../../src/signals/webhooks/signing.js';
import { claimDue, putWebhook, settle } from '../../../src/signals/webhooks/store.js';
import { DEFAULT_RETRY, retryDelayMs, startWebhookWorker, type WebhookWorker, type WebhookWorkerOptions } from '../../../src/signals/webhooks/worker.js';
import { testStore, type TestStore } from '../../helpers/db.js';
import { startReceiver, type Answer, type Receiver } from '../../helpers/webhook-receiver.js';
import { queueRegimeChanges } from '../../../src/signals/webhooks/regime-change.js';

let store: TestStore;
const cleanups: Array<() => Promise<void>> = [];
beforeEach(async () => {
  store = await testStore({ max: 20 });
});
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  await store?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Fast timing for tests: poll every 20 ms, retry after 50, 100, 200 ms. */
const FAST: Omit<WebhookWorkerOptions, 'allowPrivate'> = {
  pollMs: 20,
  retry: { baseMs: 50, capMs: 200, maxAttempts: 5 },
  timeoutMs: 1_000,
  secrets: new SecretKeeper(null),
};

async function receiver(answer?: Parameters<typeof startReceiver>[0]): Promise<Receiver> {
  const r = await startReceiver(answer);
  cleanups.push(() => r.close());
  return r;
}

function worker(options: Partial<WebhookWorkerOptions> = {}): WebhookWorker {
  const w = startWebhookWorker(store.sql, { allowPrivate: true, ...FAST, ...options });
  cleanups.push(() => w.stop());
  return w;
}

/** A Pro account whose webhook points at `url`; returns its id and secret. */
async function proWebhook(url: string): Promise<{ accountId: string; secret: string }> {
  const accountId = randomUUID();
  const secret = newWebhookSecret();
  await store.sql`insert into signal_accounts (account_id, email, tier) values (${accountId}, ${`${accountId}@example.test`}, 'pro')`;
  await putWebhook(store.sql, new SecretKeeper(null), accountId, url, secret);
  return { accountId, secret };
}

const broadcast = (regime: Regime, risk_score = 0.5) =>
  publishManual(store.sql, { date: '2024-03-20', regime, risk_score, model_version: 'manual', reason: 'test', published_by: 'test' });

/** One transition, expansion → risk_off: queues one delivery per webhook (read from the stream at once, as a round would). */
async function transition(): Promise<void> {
  await broadcast('expansion', 0.1);
  await broadcast('risk_off', 0.9);
  await queueRegimeChanges(store.sql);
}

interface Row {
  delivery_id: string;
  attempts: number;
  delivered_at: Date | null;
  failed_at: Date | null;
  last_status: number | null;
  last_error: string | null;
  next_attempt_at: Date;
}
const rows = () =>
  store.sql<
    Row[]
  >`select delivery_id, attempts, delivered_at, failed_at, last_status, last_error, next_attempt_at from webhook_deliveries order by created_at, delivery_id`;

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting until ${what}`);
    await sleep(20);
  }
}
const allSettled = () => until('every delivery is delivered or failed', async () => (await rows()).every((r) => r.delivered_at || r.failed_at));

describe('retryDelayMs', () => {
  it('doubles from 5 s up to 1 hour', () => {
    expect(Array.from({ length: 13 }, (_, i) => retryDelayMs(i + 1, DEFAULT_RETRY) / 1000)).toEqual([
      5, 10, 20, 40, 80, 160, 320, 640, 1280, 2560, 3600, 3600, 3600,
    ]);
    expect(retryDelayMs(1000, DEFAULT_RETRY)).toBe(3_600_000);
    const total = Array.from({ length: DEFAULT_RETRY.maxAttempts - 1 }, (_, i) => retryDelayMs(i + 1, DEFAULT_RETRY)).reduce((a, b) => a + b, 0);
    expect(total / 3_600_000).toBeCloseTo(10.42, 2);
  });
});

describe('a transition reaches the receiver exactly once', () => {
  it.each<[string, Answer[]]>([
    ['500, then a connection reset', [500, 'reset']],
    ['500, then no answer within the deadline', [500, 'hang']],
  ])('when the receiver fails the first two attempts (%s)', async (_name, failures) => {
    const r = await receiver((req) => failures[req.attempt - 1] ?? 200);
    const { secret } = await proWebhook(`${r.url}/hook`);
    worker({ timeoutMs: 300 });
    await transition();
    await allSettled();
    await sleep(300); // Nothing more arrives once it is delivered.

    expect(r.received.map((x) => x.answer)).toEqual([...failures, 200]);
    const [row] = await rows();
    expect(row).toMatchObject({ attempts: 3, last_status: 200, last_error: null, failed_at: null });
    expect(row!.delivered_at).toBeInstanceOf(Date);
    expect(new Set(r.received.map((x) => x.deliveryId))).toEqual(new Set([row!.delivery_id]));
    expect(r.acknowledged(row!.delivery_id)).toBe(1);
    // Every attempt carries the same body and a valid signature.
    expect(new Set(r.received.map((x) => x.body)).size).toBe(1);
    for (const x of r.received) expect(verifySignature(secret, x.body, x.signature)).toBe(true);
  });

  it('signed, with the event, delivery id and content type headers, and the regime_change payload', async () => {
    const r = await receiver();
    const { secret } = await proWebhook(`${r.url}/in`);
    worker();
    await transition();
    await r.waitFor(1);
    const [got] = r.received;
    const [row] = await rows();
    expect(got).toMatchObject({ path: '/in', event: 'regime_change', deliveryId: row!.delivery_id, contentType: 'application/json' });
    expect(got!.signature).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(verifySignature(secret, got!.body, got!.signature)).toBe(true);
    expect(verifySignature(newWebhookSecret(), got!.body, got!.signature)).toBe(false);
    const body = JSON.parse(got!.body) as Record<string, unknown>;
    expect(body).toMatchObject({
      type: 'regime_change',
      regime_change: {
        from: 'expansion',
        to: 'risk_off',
        from_label: 'Expansion',
        to_label: 'Risk-off',
        equity_exposure: '0%',
        risk_score: 0.9,
        date: '2024-03-20',
      },
    });
    expect(body.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('a manual broadcast that does not change the regime sends nothing', async () => {
    const r = await receiver();
    await proWebhook(`${r.url}/hook`);
    worker();
    await broadcast('tightening', 0.6);
    await broadcast('tightening', 0.7);
    await queueRegimeChanges(store.sql);
    await sleep(200);
    expect(await rows()).toHaveLength(0);
    expect(r.received).toHaveLength(0);
  });
});

describe('a delivery is not lost when the server stops', () => {
  it('survives a restart: a new server delivers what the stopped one could not', async () => {
    let up = false;
    const r = await receiver(() => (up ? 200 : 503));
    const { secret } = await proWebhook(`${r.url}/hook`);
    const config = configWith({ databaseUrl: store.url, logLevel: 'silent', port: 0, host: '127.0.0.1', webhookAllowPrivate: true });
    const timing = { pollMs: 20, retry: { baseMs: 100, capMs: 100, maxAttempts: 1000 }, timeoutMs: 1_000 };

    const first = await startServer(config, { services: ['signals'], webhooks: timing });
    cleanups.push(() => first.close());
    await transition();
    await r.waitFor(2);
    await first.close();
    // Attempts are counted when they fail; one cut short by the stop is handed back uncounted.
    const [pending] = await rows();
    expect(pending).toMatchObject({ delivered_at: null, failed_at: null, last_status: 503 });
    expect(pending!.attempts).toBeGreaterThanOrEqual(1);
    const before = r.received.length;
    await sleep(300);
    expect(r.received).toHaveLength(before); // Nobody is sending.

    up = true;
    const second = await startServer(config, { services: ['signals'], webhooks: timing });
    cleanups.push(() => second.close());
    await allSettled();
    const [done] = await rows();
    expect(done).toMatchObject({ last_status: 200, attempts: pending!.attempts + 1 });
    expect(r.acknowledged(done!.delivery_id)).toBe(1);
    const last = r.received.at(-1)!;
    expect(verifySignature(secret, last.body, last.signature)).toBe(true);
  });

  it('a worker stopped during an attempt hands the delivery back at once, uncounted', async () => {
    const r = await receiver((req) => (req.attempt === 1 ? 'hang' : 200));
    await proWebhook(`${r.url}/hook`);
    const a = worker({ timeoutMs: 30_000 });
    await transition();
    await r.waitFor(1);
    const started = Date.now();
    await a.stop();
    expect(Date.now() - started).toBeLessThan(2_000);
    const [handedBack] = await rows();
    expect(handedBack).toMatchObject({ attempts: 0, delivered_at: null, failed_at: null });
    expect(handedBack!.next_attempt_at.getTime()).toBeLessThanOrEqual(Date.now() + 1_000);

    worker();
    await allSettled();
    expect(await rows()).toMatchObject([{ attempts: 1, last_status: 200 }]);
    expect(r.received.map((x) => x.answer)).toEqual(['hang', 200]);
  });

  it('a claim whose worker died is taken up again when its lease runs out, and the dead attempt cannot overwrite it', async () => {
    const r = await receiver();
    await proWebhook(`${r.url}/hook`);
    await transition();
    const [claimed] = await claimDue(store.sql, 10, 300);
    expect(claimed).toMatchObject({ attempts: 1 });
    worker();
    await sleep(150);
    expect(r.received).toHaveLength(0); // Still leased.
    await allSettled();
    expect(await rows()).toMatchObject([{ attempts: 2, last_status: 200 }]);
    expect(await settle(store.sql, claimed!.delivery_id, 1, { kind: 'retry', status: 500, error: 'late', delayMs: 0 })).toBe(false);
    expect(await rows()).toMatchObject([{ attempts: 2, last_status: 200, last_error: null }]);
  });
});

describe('several workers on one database', () => {
  it('never deliver one delivery twice, retries included', async () => {
    const r = await receiver(async (req) => {
      await sleep(15);
      // Even-numbered paths fail their first attempt.
      return Number(req.path.slice(2)) % 2 === 0 && req.attempt === 1 ? 500 : 200;
    });
    const n = 24;
    for (let i = 0; i < n; i++) await proWebhook(`${r.url}/h${i}`);
    await transition();
    for (let i = 0; i < 3; i++) worker({ batch: 3, pollMs: 5, retry: { baseMs: 10, capMs: 10, maxAttempts: 5 } });
    await allSettled();
    await sleep(200);

    const ids = await rows();
    expect(ids).toHaveLength(n);
    expect(r.received).toHaveLength(n + n / 2);
    for (const row of ids) {
      expect(r.acknowledged(row.delivery_id)).toBe(1);
      expect(r.received.filter((x) => x.deliveryId === row.delivery_id)).toHaveLength(row.attempts);
    }
  });

  it('concurrent claims take disjoint sets of due deliveries', async () => {
    for (let i = 0; i < 40; i++) await proWebhook(`http://192.0.2.1/h${i}`);
    await transition();
    const claims = await Promise.all(Array.from({ length: 10 }, () => claimDue(store.sql, 7, 60_000)));
    const all = claims.flat().map((c) => c.delivery_id);
    expect(new Set(all).size).toBe(all.length);
    expect(all.length).toBe(40);
    expect(await claimDue(store.sql, 100, 60_000)).toHaveLength(0);
  });
});

describe('failures', () => {
  it('after the last attempt the delivery is marked failed and kept', async () => {
    const r = await receiver(() => 500);
    await proWebhook(`${r.url}/hook`);
    worker({ retry: { baseMs: 20, capMs: 40, maxAttempts: 3 } });
    await transition();
    await allSettled();
    await sleep(200);
    expect(r.received).toHaveLength(3);
    const [row] = await rows();
    expect(row).toMatchObject({ attempts: 3, delivered_at: null, last_status: 500 });
    expect(row!.failed_at).toBeInstanceOf(Date);
    expect(row!.last_error).toMatch(/answered 500 \(attempt 3 of 3, the last\)/);
  });

  it('checks the target again at delivery time: a URL that now points at a refused address is not requested', async () => {
    const r = await receiver();
    await proWebhook(`${r.url}/hook`);
    worker({ allowPrivate: false, retry: { baseMs: 60_000, capMs: 60_000, maxAttempts: 5 } });
    await transition();
    await until('the first attempt is recorded', async () => (await rows())[0]?.last_error != null);
    const [row] = await rows();
    expect(row).toMatchObject({ attempts: 1, delivered_at: null, failed_at: null, last_status: null });
    expect(row!.last_error).toMatch(/127\.0\.0\.1 is a loopback address/);
    expect(row!.next_attempt_at.getTime()).toBeGreaterThan(Date.now() + 50_000);
    expect(r.received).toHaveLength(0);
  });

  it('fails the deliveries of a removed webhook or of an account below Pro, without a request', async () => {
    const r = await receiver();
    const a = await proWebhook(`${r.url}/a`);
    await proWebhook(`${r.url}/b`);
    await transition();
    await store.sql`delete from signal_webhooks where account_id = ${a.accountId}`;
    await store.sql`update signal_accounts set tier = 'starter' where account_id <> ${a.accountId}`;
    worker();
    await allSettled();
    expect((await rows()).map((x) => x.last_error).sort()).toEqual(["the account's tier (starter) no longer includes the webhook", 'the webhook was removed']);
    expect(r.received).toHaveLength(0);
  });
});
