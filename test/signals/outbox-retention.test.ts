/**
 * The local outbox keeps no mail past `OUTBOX_RETENTION_HOURS` (src/signals/mail/outbox.ts), against real
 * Postgres: the housekeeping deletes older mail, recipient address and text, read or not, and keeps younger
 * mail; and an older mail is never shown, by `GET /v1/admin/outbox` or `tradeseal signals outbox`, even while
 * the housekeeping has not deleted it yet. The service here keeps mail 5 hours, not the default 72, so the
 * bound shown is the setting's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/core/config.js';
import { signalsHousekeeping } from '../../src/signals/housekeeping.js';
import { cliEnv, describeRun, runCli, tempHome } from '../helpers/cli.js';
import { signalsHarness, uniqueEmail, type SignalsHarness } from '../helpers/signals-accounts.js';

const HOURS = 5;
let h: SignalsHarness;
let owner: string;
let clients = 0;
const home = tempHome();
beforeAll(async () => {
  h = await signalsHarness({ config: { outboxRetentionHours: HOURS } });
  owner = (await h.keyFor('owner')).api_key;
});
afterAll(async () => h?.close());

const register = async (email: string): Promise<void> => {
  const res = await h.call('POST', '/v1/auth/register', { body: { email }, ip: `10.3.0.${++clients}` });
  expect(res.statusCode, res.body).toBe(202);
};
/** Makes the mail to `email` as old as the bound plus `plusSeconds` (negative: younger than the bound). */
const age = async (email: string, plusSeconds: number): Promise<void> => {
  await h.store.sql`update signal_outbox set created_at = now() - make_interval(hours => ${HOURS}, secs => ${plusSeconds}) where recipient = ${email}`;
};
/** What the store keeps for `email`: every row that names it, as a copy of the table would show it. */
const rowsFor = async (email: string): Promise<number> =>
  (await h.store.sql<Array<{ n: number }>>`select count(*)::int as n from signal_outbox o where row_to_json(o)::text like ${`%${email}%`}`)[0]!.n;
const adminRead = async (query: string): Promise<Array<{ recipient: string; body: string }>> => {
  const res = await h.call('GET', `/v1/admin/outbox?${query}`, { key: owner });
  expect(res.statusCode, res.body).toBe(200);
  const body = res.json();
  expect(body.count).toBe(body.messages.length);
  return body.messages;
};

describe('the outbox retention bound', () => {
  it('is OUTBOX_RETENTION_HOURS: 72 by default, 1 to 8760, anything else refused at start', () => {
    expect(loadConfig({}).outboxRetentionHours).toBe(72);
    expect(loadConfig({ OUTBOX_RETENTION_HOURS: '24' }).outboxRetentionHours).toBe(24);
    for (const bad of ['0', '8761', '1.5', 'three']) {
      expect(() => loadConfig({ OUTBOX_RETENTION_HOURS: bad }), bad).toThrow(
        expect.objectContaining({ code: 'config_invalid', message: expect.stringContaining('OUTBOX_RETENTION_HOURS') }),
      );
    }
  });

  it('the housekeeping deletes mail past the bound, recipient and text, read or not, and keeps younger mail', async () => {
    const read = uniqueEmail('old-read');
    const unread = uniqueEmail('old-unread');
    const young = uniqueEmail('young');
    for (const email of [read, unread, young]) await register(email);
    await h.outboxCode(read);
    await age(read, 1);
    await age(unread, 1);
    await age(young, -60);

    const result = await signalsHousekeeping(h.store.sql, h.config);
    expect(result.outbox_messages_deleted).toBe(2);
    expect(await rowsFor(read)).toBe(0);
    expect(await rowsFor(unread)).toBe(0);
    expect(await rowsFor(young)).toBe(1);
    const [past] = await h.store.sql<
      Array<{ n: number }>
    >`select count(*)::int as n from signal_outbox where created_at <= now() - make_interval(hours => ${HOURS})`;
    expect(past!.n).toBe(0);
    // The younger mail is whole: its code is still there to be read once.
    expect(await h.outboxCode(young)).toMatch(/^\d{6}$/);

    // Run again: nothing more is past the bound.
    expect((await signalsHousekeeping(h.store.sql, h.config)).outbox_messages_deleted).toBe(0);
  });

  it('a mail past the bound is never shown, by the API or the CLI, and a read deletes it though the housekeeping has not run', async () => {
    const old = uniqueEmail('stale');
    const young = uniqueEmail('fresh');
    await register(old);
    await register(young);
    await age(old, 1);
    await age(young, -60);

    // A longer bound shows it: the CLI follows the setting.
    const longer = await runCli(
      ['signals', 'outbox', '--to', old, '--json'],
      cliEnv(home, h.store.url, { SMTP_URL: undefined, OUTBOX_RETENTION_HOURS: String(HOURS + 1) }),
    );
    expect(longer.code, describeRun(longer)).toBe(0);
    expect(longer.json()).toMatchObject({ count: 1, messages: [{ recipient: old }] });
    expect(await rowsFor(old)).toBe(1);

    // The server's bound (HOURS): not shown, and the read itself deleted it (no housekeeping ran).
    expect(await adminRead(`to=${encodeURIComponent(old)}`)).toEqual([]);
    expect(await rowsFor(old)).toBe(0);
    const all = (await adminRead('limit=100')).map((m) => m.recipient);
    expect(all).toContain(young);
    expect(all).not.toContain(old);

    // The CLI on the store alone, with no server and so no housekeeping, does the same.
    const alone = uniqueEmail('stale-cli');
    await register(alone);
    await age(alone, 1);
    const cli = await runCli(
      ['signals', 'outbox', '--to', alone, '--json'],
      cliEnv(home, h.store.url, { SMTP_URL: undefined, OUTBOX_RETENTION_HOURS: String(HOURS) }),
    );
    expect(cli.code, describeRun(cli)).toBe(0);
    expect(cli.json()).toEqual({ count: 0, messages: [] });
    expect(await rowsFor(alone)).toBe(0);
  }, 60_000);
});
