/**
 * Registration is not a mail relay: at most REGISTER_PER_CLIENT_PER_HOUR registration mails an hour are sent
 * for one client address, and REGISTER_TOTAL_PER_HOUR in all, on every server of the store together. Beyond
 * them `POST /v1/auth/register` is 429 `rate_limited` with `retry_at` and `Retry-After`, the seconds until the
 * oldest mail of the hour leaves it, and no mail is sent. Concurrent registrations (on one server, and on two
 * servers with pools of their own) never exceed a limit; a refused one gives the address's minute back. (The
 * housekeeping that deletes the client addresses that have left the hour is housekeeping.test.ts's.)
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWith } from '../../src/core/config.js';
import { buildApp } from '../../src/http/app.js';
import { createSignalsContext, type SignalsContext } from '../../src/signals/context.js';
import { openStore, type Store } from '../../src/store/db.js';
import { expectError, signalsHarness, uniqueEmail, type SignalsHarness } from '../helpers/signals-accounts.js';

let h: SignalsHarness;
beforeAll(async () => {
  h = await signalsHarness({ max: 40 });
});
afterAll(async () => h?.close());

const register = (email: string, ip: string, harness = h) => harness.call('POST', '/v1/auth/register', { body: { email }, ip });
const mailsTo = async (emails: string[]): Promise<number> =>
  (await h.store.sql<Array<{ n: number }>>`select count(*)::int as n from signal_outbox where recipient in ${h.store.sql(emails)}`)[0]!.n;
/** As if the mails of `ip` had been sent `seconds` earlier. */
const age = (ip: string, seconds: number) =>
  h.store.sql`update signal_registration_mails set sent_at = sent_at - make_interval(secs => ${seconds}) where client_ip = ${ip}`;
const statuses = (answers: Array<{ statusCode: number }>): Record<number, number> =>
  answers.reduce<Record<number, number>>((n, a) => ({ ...n, [a.statusCode]: (n[a.statusCode] ?? 0) + 1 }), {});

describe('registration mails per client address per hour', () => {
  it('defaults to 10 an hour and 1000 in all', () => {
    expect(h.config.registerPerClientPerHour).toBe(10);
    expect(h.config.registerTotalPerHour).toBe(1000);
  });

  it('of 30 concurrent registrations of 30 addresses from one client address, 10 mail; 20 are 429 with Retry-After and send nothing', async () => {
    const ip = '198.51.100.7';
    const emails = Array.from({ length: 30 }, () => uniqueEmail('relay'));
    const answers = await Promise.all(emails.map((email) => register(email, ip)));
    expect(statuses(answers)).toEqual({ 202: 10, 429: 20 });
    expect(await mailsTo(emails)).toBe(10);
    for (const refused of answers.filter((a) => a.statusCode === 429)) {
      const body = expectError(refused, 429, 'rate_limited');
      expect(body.detail).toMatch(/^10 registration mails were sent for this client address in the last hour; the next one may go at .+Z$/);
      const retryAfter = Number(refused.headers['retry-after']);
      expect(Number.isInteger(retryAfter)).toBe(true);
      // A slot frees when the first mail leaves the hour: within the hour, and (the test's own run aside) in about an hour.
      expect(retryAfter).toBeGreaterThan(3000);
      expect(retryAfter).toBeLessThanOrEqual(3600);
      expect(Date.parse(body.retry_at)).toBeGreaterThan(Date.now() + 3000_000);
    }
    // Another client address is not held back.
    expect((await register(uniqueEmail('other'), '198.51.100.8')).statusCode).toBe(202);
    // A refused address was given its minute back: once the client's hour frees, it registers at once.
    const refusedEmail = emails[answers.findIndex((a) => a.statusCode === 429)]!;
    await age(ip, 3601);
    expect((await register(refusedEmail, ip)).statusCode).toBe(202);
  });

  it('Retry-After is the seconds until the oldest mail of the hour leaves it; then the next registration mails', async () => {
    const ip = '198.51.100.20';
    for (let i = 0; i < 10; i++) expect((await register(uniqueEmail('slot'), ip)).statusCode).toBe(202);
    // The oldest mail is 30 s from leaving the hour.
    await h.store.sql`
      update signal_registration_mails set sent_at = now() - interval '3570 seconds'
      where id = (select min(id) from signal_registration_mails where client_ip = ${ip})`;
    const refused = await register(uniqueEmail('slot'), ip);
    const body = expectError(refused, 429, 'rate_limited');
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(30);
    const [oldest] = await h.store.sql<Array<{ leaves: Date }>>`
      select min(sent_at) + interval '1 hour' as leaves from signal_registration_mails where client_ip = ${ip}`;
    expect(body.retry_at).toBe(oldest!.leaves.toISOString());
    await h.store
      .sql`update signal_registration_mails set sent_at = sent_at - interval '31 seconds' where id = (select min(id) from signal_registration_mails where client_ip = ${ip})`;
    expect((await register(uniqueEmail('slot'), ip)).statusCode).toBe(202);
  });

  it('holds across two servers with pools of their own: 24 concurrent registrations from one client address mail 10', async () => {
    const ip = '198.51.100.30';
    const second = await secondServer();
    try {
      const emails = Array.from({ length: 24 }, () => uniqueEmail('two'));
      const answers = await Promise.all(emails.map((email, i) => (i % 2 === 0 ? register(email, ip) : second.register(email, ip))));
      expect(statuses(answers)).toEqual({ 202: 10, 429: 14 });
      expect(await mailsTo(emails)).toBe(10);
    } finally {
      await second.close();
    }
  });
});

describe('registration mails in all per hour', () => {
  let small: SignalsHarness;
  beforeAll(async () => {
    small = await signalsHarness({ max: 30, config: { registerTotalPerHour: 5 } });
  });
  afterAll(async () => small?.close());

  it('of 20 concurrent registrations from 20 client addresses, 5 mail; 15 are 429 with Retry-After', async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => register(uniqueEmail('many'), `203.0.113.${i + 1}`, small)));
    expect(statuses(answers)).toEqual({ 202: 5, 429: 15 });
    const [outbox] = await small.store.sql<Array<{ n: number }>>`select count(*)::int as n from signal_outbox`;
    expect(outbox!.n).toBe(5);
    for (const refused of answers.filter((a) => a.statusCode === 429)) {
      expect(expectError(refused, 429, 'rate_limited').detail).toMatch(
        /^the service sent its 5 registration mails of the last hour; the next one may go at .+Z$/,
      );
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(3000);
    }
  });
});

/** A second signal service on the same database, with its own pool of connections, as another server would be. */
async function secondServer(): Promise<{ register(email: string, ip: string): ReturnType<SignalsHarness['call']>; close(): Promise<void> }> {
  const config = configWith({ logLevel: 'silent', databaseUrl: h.store.url });
  const store: Store = await openStore(config, { max: 20 });
  const ctx: SignalsContext = createSignalsContext(config, store.sql);
  const app: FastifyInstance = await buildApp(config, { sql: store.sql, services: ['signals'], logger: false, signals: ctx });
  return {
    register: (email, ip) => app.inject({ method: 'POST', url: '/v1/auth/register', payload: { email }, remoteAddress: ip }),
    async close() {
      await app.close();
      await ctx.close();
      await store.close();
    },
  };
}
