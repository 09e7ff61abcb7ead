/**
 * The signal service's housekeeping (src/signals/housekeeping.ts), against real Postgres: verification codes
 * past their 15 minutes leave the outbox, unread ones included, and the rows of the hourly registration
 * count that have left the hour leave the store with their client addresses; nothing younger is touched.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signalsHousekeeping } from '../../src/signals/housekeeping.js';
import { signalsHarness, uniqueEmail, type SignalsHarness } from '../helpers/signals-accounts.js';

let h: SignalsHarness;
beforeAll(async () => {
  h = await signalsHarness();
});
afterAll(async () => h?.close());

const register = async (email: string, ip: string): Promise<void> => {
  const res = await h.call('POST', '/v1/auth/register', { body: { email }, ip });
  expect(res.statusCode, res.body).toBe(202);
};
const heldCode = async (email: string): Promise<string | null> =>
  (await h.store.sql<Array<{ code: string | null }>>`select code from signal_outbox where recipient = ${email}`)[0]?.code ?? null;

describe('the signal service housekeeping', () => {
  it('removes the outbox codes past their 15 minutes, read or not, and keeps the live ones', async () => {
    const expired = uniqueEmail('expired');
    const live = uniqueEmail('live');
    await register(expired, '192.0.2.1');
    await register(live, '192.0.2.1');
    await h.store.sql`update signal_outbox set code_expires_at = now() - interval '1 second' where recipient = ${expired}`;
    const result = await signalsHousekeeping(h.store.sql, h.config);
    expect(result.outbox_codes_expired).toBe(1);
    expect(await heldCode(expired)).toBeNull();
    expect(await heldCode(live)).toMatch(/^\d{6}$/);
    const [left] = await h.store.sql<Array<{ n: number }>>`select count(*)::int as n from signal_outbox where code is not null and code_expires_at <= now()`;
    expect(left!.n).toBe(0);
  });

  it('deletes the client addresses whose registration mails have left the hour, and no others', async () => {
    const ip = '192.0.2.40';
    await register(uniqueEmail('prune'), ip);
    await register(uniqueEmail('prune'), ip);
    await h.store.sql`
      update signal_registration_mails set sent_at = now() - interval '3601 seconds'
      where id = (select min(id) from signal_registration_mails where client_ip = ${ip})`;
    const result = await signalsHousekeeping(h.store.sql, h.config);
    expect(result.registration_mails_pruned).toBe(1);
    const [old] = await h.store.sql<Array<{ n: number }>>`select count(*)::int as n from signal_registration_mails where sent_at <= now() - interval '1 hour'`;
    expect(old!.n).toBe(0);
    expect((await h.store.sql`select 1 from signal_registration_mails where client_ip = ${ip}`).length).toBe(1);
  });
});
