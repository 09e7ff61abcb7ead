/**
 * Mail through SMTP (SMTP_URL set): a real SMTP server in this process (smtp-server) receives the
 * verification mail of a register, with the configured sender and the credentials of SMTP_URL, and the code
 * read from that mail verifies. A server that refuses the message, or none listening, makes register answer
 * 503 `service_unavailable` and keeps nothing: no pending code, nothing in the outbox, and a retry works.
 */
import net from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registeredBody } from '../../src/http/signals/account-schemas.js';
import { expectError, expectSchema, signalsHarness, uniqueEmail, type SignalsHarness } from '../helpers/signals-accounts.js';

interface Received {
  from: string;
  to: string[];
  user: string | undefined;
  raw: string;
}

const received: Received[] = [];

/** The text of a message whose body is quoted-printable (RFC 2045 §6.7: `=` + CRLF is a soft break, `=XX` a byte). */
function bodyText(raw: string): string {
  const body = raw.slice(raw.search(/\r?\n\r?\n/));
  return Buffer.from(
    body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))),
    'latin1',
  ).toString('utf8');
}

let refuse = false;

const smtp = new SMTPServer({
  logger: false,
  disabledCommands: ['STARTTLS'],
  allowInsecureAuth: true,
  authOptional: false,
  onAuth(auth, _session, callback) {
    if (auth.username === 'mailer' && auth.password === 's3cret:pass') callback(null, { user: auth.username });
    else callback(new Error('invalid credentials'));
  },
  onRcptTo(_address, _session, callback) {
    if (refuse) callback(Object.assign(new Error('mailbox unavailable'), { responseCode: 550 }));
    else callback();
  },
  onData(stream, session, callback) {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      received.push({
        from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
        to: session.envelope.rcptTo.map((r) => r.address),
        user: session.user as string | undefined,
        raw: Buffer.concat(chunks).toString('utf8'),
      });
      callback();
    });
  },
});

let h: SignalsHarness;
let port: number;

beforeAll(async () => {
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  port = (smtp.server.address() as net.AddressInfo).port;
  h = await signalsHarness({
    config: {
      smtpUrl: `smtp://mailer:${encodeURIComponent('s3cret:pass')}@127.0.0.1:${port}`,
      mailFrom: 'Regime Signals <signals@example.test>',
      publicBaseUrl: 'https://signals.example.com',
    },
  });
});
afterAll(async () => {
  await h?.close();
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
});

const register = (email: string) => h.call('POST', '/v1/auth/register', { body: { email } });
const mailTo = (email: string): Received | undefined => received.filter((m) => m.to.includes(email)).at(-1);
const pending = async (email: string): Promise<number> =>
  (await h.store.sql<Array<{ n: number }>>`select count(*)::int as n from signal_verifications where email = ${email}`)[0]!.n;
const outbox = async (): Promise<number> => (await h.store.sql<Array<{ n: number }>>`select count(*)::int as n from signal_outbox`)[0]!.n;

describe('mail through SMTP', () => {
  it('register mails the code through the SMTP server; the code read from that mail verifies', async () => {
    const email = uniqueEmail('smtp');
    const res = await register(email);
    expect(res.statusCode, res.body).toBe(202);
    expectSchema(res.json(), registeredBody);

    const mail = mailTo(email);
    expect(mail, 'the SMTP server received no mail').toBeDefined();
    expect(mail!.user).toBe('mailer');
    expect(mail!.from).toBe('signals@example.test');
    expect(mail!.raw).toMatch(/^From: Regime Signals <signals@example\.test>\r?$/m);
    expect(mail!.raw).toMatch(new RegExp(`^To: ${email.replace(/\./g, '\\.')}\\r?$`, 'm'));
    expect(mail!.raw).toMatch(/^Subject: tradeseal regime signals: your verification code\r?$/m);
    const text = bodyText(mail!.raw);
    expect(text).toContain('https://signals.example.com/v1/auth/verify');
    const code = /verification code is (\d{6})\./.exec(text)?.[1];
    expect(code).toMatch(/^\d{6}$/);

    const verified = await h.call('POST', '/v1/auth/verify', { body: { email, code } });
    expect(verified.statusCode, verified.body).toBe(201);
    expect(verified.json()).toMatchObject({ email, tier: 'free', daily_limit: 50 });
    // Nothing went to the outbox: SMTP_URL is set.
    expect(await outbox()).toBe(0);
  });

  it('a refused message: 503 service_unavailable, no pending code, nothing in the outbox; a retry works', async () => {
    const email = uniqueEmail('refused');
    refuse = true;
    try {
      const res = expectError(await register(email), 503, 'service_unavailable');
      expect(res.detail).toMatch(/mail server did not take the message/);
      expect(res.detail).not.toContain('s3cret');
      expect(res.detail).not.toContain(String(port));
    } finally {
      refuse = false;
    }
    expect(await pending(email)).toBe(0);
    expect(await outbox()).toBe(0);

    const retry = await register(email);
    expect(retry.statusCode, retry.body).toBe(202);
    const code = /verification code is (\d{6})\./.exec(bodyText(mailTo(email)!.raw))![1]!;
    expect((await h.call('POST', '/v1/auth/verify', { body: { email, code } })).statusCode).toBe(201);
  });

  it('a failed register removes its own code (a register replaces the earlier one), so the address starts clean', async () => {
    const email = uniqueEmail('replaced');
    expect((await register(email)).statusCode).toBe(202);
    // A minute later (registration mail is throttled to one a minute per address):
    await h.store.sql`update signal_mail_throttle set last_sent_at = last_sent_at - interval '1 minute' where email = ${email}`;
    refuse = true;
    try {
      expectError(await register(email), 503, 'service_unavailable');
    } finally {
      refuse = false;
    }
    // The failed register's code is gone; the address has no pending code, and registering again works.
    expect(await pending(email)).toBe(0);
    expect((await register(email)).statusCode).toBe(202);
    expect(await pending(email)).toBe(1);
  });

  it('no SMTP server listening: 503 service_unavailable, nothing kept', async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadPort = (closed.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const dead = await signalsHarness({ config: { smtpUrl: `smtp://127.0.0.1:${deadPort}` } });
    try {
      const email = uniqueEmail('dead');
      expectError(await dead.call('POST', '/v1/auth/register', { body: { email } }), 503, 'service_unavailable');
      expect((await dead.store.sql`select 1 from signal_verifications where email = ${email}`).length).toBe(0);
    } finally {
      await dead.close();
    }
  });
});
