/**
 * No usable verification code rests in the local outbox (SMTP_URL unset). The mail's text is stored without
 * its code; the code is kept apart only until the first of: its delivery (the operator's read shows it once,
 * and of concurrent reads exactly one), its use (verify), its replacement (a new register), its expiry (never
 * shown after its 15 minutes). A copy of the table, the listing and the
 * operator's commands then show `[removed]`; mail kept before this version loses its codes in the migration.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultMigrationsDir } from '../../src/store/migration-files.js';
import { signalsHarness, uniqueEmail, type SignalsHarness } from '../helpers/signals-accounts.js';

let h: SignalsHarness;
let owner: string;
let clients = 0;
beforeAll(async () => {
  h = await signalsHarness({ max: 20 });
  owner = (await h.keyFor('owner')).api_key;
});
afterAll(async () => h?.close());

const register = async (email: string): Promise<void> => {
  const res = await h.call('POST', '/v1/auth/register', { body: { email }, ip: `10.2.0.${++clients}` });
  expect(res.statusCode, res.body).toBe(202);
};
/** Everything the outbox keeps for `email`, as a copy of the table would show it. */
const stored = async (email: string): Promise<string> =>
  (await h.store.sql<Array<{ row: string }>>`select row_to_json(o)::text as row from signal_outbox o where recipient = ${email}`).map((r) => r.row).join('\n');
const heldCode = async (email: string): Promise<string | null> =>
  (await h.store.sql<Array<{ code: string | null }>>`select code from signal_outbox where recipient = ${email} order by id desc limit 1`)[0]?.code ?? null;
const codeIn = (body: string): string | undefined => /verification code is (\d{6})\./.exec(body)?.[1];
/** The operator's read of the newest mail to `email` (GET /v1/admin/outbox, as `tradeseal signals outbox --to` reads it). */
const read = async (email: string): Promise<string> => {
  const res = await h.call('GET', `/v1/admin/outbox?to=${encodeURIComponent(email)}&limit=1`, { key: owner });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().messages[0].body;
};

describe('verification codes in the outbox', () => {
  it('the stored text holds no code; the read shows it once, then the store holds none and the mail reads [removed]', async () => {
    const email = uniqueEmail('once');
    await register(email);
    // Until it is read, the code is held apart from the text, which has none.
    const before = (await h.store.sql<Array<{ body: string }>>`select body from signal_outbox where recipient = ${email}`)[0]!.body;
    expect(before).not.toMatch(/verification code is \d{6}/);
    expect(before).not.toMatch(/"code": "\d{6}"/);

    const mail = await read(email);
    const code = codeIn(mail)!;
    expect(code).toMatch(/^\d{6}$/);
    expect(mail).toContain(`"code": "${code}"`);
    expect(before).not.toContain(code);
    expect(await stored(email)).not.toContain(code);
    expect(await heldCode(email)).toBeNull();

    const again = await read(email);
    expect(again).toContain('Your verification code is [removed].');
    expect(again).not.toContain(code);
    // Delivered means passed on: the code still verifies.
    const ok = await h.call('POST', '/v1/auth/verify', { body: { email, code } });
    expect(ok.statusCode, ok.body).toBe(201);
  });

  it('of eight concurrent reads, exactly one shows the code', async () => {
    const email = uniqueEmail('race');
    await register(email);
    const reads = await Promise.all(Array.from({ length: 8 }, () => read(email)));
    const shown = reads.map(codeIn).filter((c) => c !== undefined);
    expect(shown).toHaveLength(1);
  });

  it('is never shown after its 15 minutes', async () => {
    const email = uniqueEmail('late');
    await register(email);
    // 15 minutes later (the housekeeping that removes expired codes is test/signals/housekeeping.test.ts's).
    await h.store.sql`update signal_outbox set code_expires_at = now() - interval '1 second' where recipient = ${email}`;
    const late = await read(email);
    expect(codeIn(late)).toBeUndefined();
    expect(late).toContain('Your verification code is [removed].');
    expect(await heldCode(email)).toBeNull();
  });

  it('verify removes the code it uses, in the transaction that creates the account', async () => {
    const email = uniqueEmail('used');
    await register(email);
    // Someone with the store in hand, not the operator's read: the code is still held.
    const code = (await heldCode(email))!;
    const ok = await h.call('POST', '/v1/auth/verify', { body: { email, code } });
    expect(ok.statusCode, ok.body).toBe(201);
    expect(await heldCode(email)).toBeNull();
    expect(await stored(email)).not.toContain(code);
  });

  it('a new register removes the earlier code: one live code per address', async () => {
    const email = uniqueEmail('replaced');
    await register(email);
    const first = (await heldCode(email))!;
    await h.store.sql`update signal_mail_throttle set last_sent_at = last_sent_at - interval '1 minute' where email = ${email}`;
    await register(email);
    const rows = await h.store.sql<Array<{ code: string | null }>>`select code from signal_outbox where recipient = ${email} order by id`;
    expect(rows.map((r) => r.code === null)).toEqual([true, false]);
    expect(await stored(email)).not.toContain(`"code":"${first}"`);
  });

  it('the migration removes the codes of mail kept before, and nothing else', async () => {
    const email = uniqueEmail('kept');
    const body = [
      'Your verification code is 042917.',
      '',
      'It is valid for 15 minutes (until 2026-11-27T12:30:26.123Z). Send it with your address to receive your',
      `    -d '{"email": "${email}", "code": "042917"}'`,
      'Documentation: http://localhost:8080/docs',
    ].join('\n');
    await h.store.sql`insert into signal_outbox (recipient, subject, body) values (${email}, 'tradeseal regime signals: your verification code', ${body})`;
    const migration = readFileSync(path.join(defaultMigrationsDir(), '0017_registration_limits.sql'), 'utf8');
    const scrub = /^update signal_outbox set body = [^\n]+;$/m.exec(migration)![0];
    await h.store.sql.unsafe(scrub);
    const [row] = await h.store.sql<Array<{ body: string }>>`select body from signal_outbox where recipient = ${email}`;
    expect(row!.body).toBe(body.replaceAll('042917', '[removed]'));
  });
});
