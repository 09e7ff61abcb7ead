/**
 * The server log's serializers (src/http/log-redaction.ts): query values redacted with their names kept, and
 * errors without the values drivers and mailers attach, table-driven; then the app's own log at
 * LOG_LEVEL=trace, captured, for requests whose queries and bodies carry an address.
 */
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWith } from '../../src/core/config.js';
import { TradesealError } from '../../src/core/errors.js';
import { buildApp } from '../../src/http/app.js';
import { redactQuery, redactText, serializeError } from '../../src/http/log-redaction.js';
import { issueAccountKey } from '../../src/signals/ops/keys.js';
import { testStore, type TestStore } from '../helpers/db.js';

describe('redactQuery', () => {
  it.each([
    ['/v1/signals/latest', '/v1/signals/latest'],
    ['/v1/admin/outbox?to=ann%40example.com&limit=1', '/v1/admin/outbox?to=[redacted]&limit=[redacted]'],
    ['/v1/admin/keys?email=ann@example.com', '/v1/admin/keys?email=[redacted]'],
    ['/x?flag&email=', '/x?flag&email=[redacted]'],
    ['/x?a=1&a=2', '/x?a=[redacted]&a=[redacted]'],
    ['/x?ann%40example.com', '/x?[redacted]'],
    ['/x?ann@example.com=1', '/x?[redacted]=[redacted]'],
    ['/x?', '/x?'],
    ['/x?page[size]=5', '/x?page[size]=[redacted]'],
  ])('%s → %s', (url, logged) => {
    expect(redactQuery(url)).toBe(logged);
  });
});

describe('redactText (every message)', () => {
  it.each([
    ['webhook worker: delivery 7 failed: connect ECONNREFUSED 127.0.0.1:9', 'webhook worker: delivery 7 failed: connect ECONNREFUSED 127.0.0.1:9'],
    ['POST http://127.0.0.1:9/hook?token=abc123 failed', 'POST http://127.0.0.1:9/hook?[redacted] failed'],
    ['to https://hooks.example.test/h?token=abc&x=1#top: 500', 'to https://hooks.example.test/h?[redacted]#top: 500'],
    ['550 <ann.b+c@mail.example.co.uk>: mailbox unavailable', '550 <[e-mail]>: mailbox unavailable'],
  ])('%s', (text, logged) => {
    expect(redactText(text)).toBe(logged);
  });
});

describe('serializeError', () => {
  it("keeps type, message, stack and code; drops a PostgreSQL error's values, keeping the names", () => {
    const err = Object.assign(new Error('duplicate key value violates unique constraint "signal_accounts_email_key"'), {
      code: '23505',
      detail: 'Key (email)=(ann@example.com) already exists.',
      where: 'ann@example.com',
      table_name: 'signal_accounts',
      constraint_name: 'signal_accounts_email_key',
      parameters: ['ann@example.com'],
    });
    const out = serializeError(err);
    expect(out).toMatchObject({ type: 'Error', code: '23505', table_name: 'signal_accounts', constraint_name: 'signal_accounts_email_key' });
    expect(JSON.stringify(out)).not.toContain('ann@example.com');
    expect(out.stack).toContain('duplicate key value');
  });

  it("drops a mailer's recipients and hides any address in a message, its causes' included", () => {
    const smtp = Object.assign(new Error("Can't send mail - all recipients were rejected: 550 <ann@example.com>: mailbox unavailable"), {
      code: 'EENVELOPE',
      response: '550 <ann@example.com>: mailbox unavailable',
      rejected: ['ann@example.com'],
      command: 'RCPT TO',
    });
    const err = new TradesealError('service_unavailable', 'the mail server did not take the message', { cause: smtp });
    const out = serializeError(err);
    const text = JSON.stringify(out);
    expect(text).not.toContain('ann@example.com');
    expect(text).not.toContain('example.com');
    expect(out.message).toContain('[e-mail]');
    expect(out.code).toBe('service_unavailable');
    expect(Object.keys(out).sort()).toEqual(['code', 'message', 'stack', 'type']);
  });
});

describe("the app's log at LOG_LEVEL=trace", () => {
  let store: TestStore;
  beforeAll(async () => {
    store = await testStore();
  });
  afterAll(async () => store?.close());

  it('shows each request with its query names and no values, and no address from a query or a body', async () => {
    const lines: string[] = [];
    const stream = new PassThrough();
    stream.on('data', (chunk: Buffer) => lines.push(chunk.toString('utf8')));
    const config = configWith({ logLevel: 'trace', databaseUrl: store.url });
    const app = await buildApp(config, { sql: store.sql, services: ['signals'], logStream: stream });
    try {
      const owner = await issueAccountKey(store.sql, { email: 'owner.person@example.test', tier: 'owner' });
      const ann = 'ann.person@example.test';
      const answers = await Promise.all([
        app.inject({ method: 'GET', url: `/v1/admin/keys?email=${encodeURIComponent(ann)}`, headers: { 'x-signals-key': owner.api_key } }),
        app.inject({ method: 'GET', url: `/v1/admin/outbox?to=${ann}&limit=1`, headers: { 'x-signals-key': owner.api_key } }),
        app.inject({ method: 'POST', url: '/v1/auth/register', payload: { email: ann, extra: ann } }),
        app.inject({ method: 'GET', url: `/v1/nowhere?email=${ann}` }),
      ]);
      expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 422, 404]);
      app.log.warn(`a job failed for ${ann} at https://hooks.example.test/h?token=tok-${ann.length}`);
    } finally {
      await app.close();
    }
    const log = lines.join('');
    expect(log).toContain('"url":"/v1/admin/keys?email=[redacted]"');
    expect(log).toContain('"url":"/v1/admin/outbox?to=[redacted]&limit=[redacted]"');
    expect(log).toContain('"url":"/v1/nowhere?email=[redacted]"');
    expect(log).not.toContain('person@example.test');
    expect(log).not.toContain('person%40example.test');
    expect(log).toContain('a job failed for [e-mail] at https://hooks.example.test/h?[redacted]');
  });
});
