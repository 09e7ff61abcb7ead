/**
 * The regime signal service under test, for its accounts and keys: a real store (see ./db.ts), the real app
 * (signal service only) through `inject()`, keys of any tier issued by the operators' operation, the codes
 * of registration delivered from the outbox, and a check of a response body against its documented schema.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { configWith, type Config } from '../../src/core/config.js';
import { errorBody } from '../../src/core/schemas.js';
import { buildApp } from '../../src/http/app.js';
import { validatePart } from '../../src/core/validation.js';
import { createSignalsContext, type SignalsContext } from '../../src/signals/context.js';
import { readOutbox } from '../../src/signals/mail/outbox.js';
import { issueAccountKey, type IssuedKey } from '../../src/signals/ops/keys.js';
import type { Tier } from '../../src/signals/tiers.js';
import { testStore, type TestStore } from './db.js';
import { documented } from './documented.js';

export interface SignalsHarnessOptions {
  config?: Partial<Config>;
  /** Connections in the pool (concurrency tests want more). */
  max?: number;
  /** Print server faults (5xx) to stderr, for diagnosing a failing test. */
  log?: boolean;
}

export interface SignalsHarness {
  store: TestStore;
  app: FastifyInstance;
  ctx: SignalsContext;
  config: Config;
  /**
   * A request; `key` goes in X-Signals-Key. A string body is sent as is (with `headers` saying its type).
   * `ip` is the client's address (`request.ip`; 127.0.0.1 unless given).
   */
  call(
    method: string,
    url: string,
    options?: { body?: unknown; key?: string | null; headers?: Record<string, string>; ip?: string },
  ): Promise<LightMyRequestResponse>;
  /** A key of `tier` for a new account (or the account of `email`). */
  keyFor(tier: Tier, options?: { email?: string; agent_count?: number }): Promise<IssuedKey>;
  /** The 6-digit code of the newest mail to `email` in the outbox, delivered as the operator's read delivers it (once). */
  outboxCode(email: string): Promise<string>;
  close(): Promise<void>;
}

export const uniqueEmail = (tag = 'user'): string => `${tag}-${randomUUID().slice(0, 8)}@example.test`;

export async function signalsHarness(options: SignalsHarnessOptions = {}): Promise<SignalsHarness> {
  const store = await testStore(options.max ? { max: options.max } : {});
  const config = configWith({ logLevel: options.log ? 'error' : 'silent', databaseUrl: store.url, ...options.config });
  const ctx = createSignalsContext(config, store.sql);
  const app = await documented(await buildApp(config, { sql: store.sql, services: ['signals'], logger: options.log ?? false, signals: ctx }));
  return {
    store,
    app,
    ctx,
    config,
    call(method, url, o = {}) {
      const headers: Record<string, string> = { ...(o.key ? { 'x-signals-key': o.key } : {}), ...o.headers };
      return app.inject({
        method: method as 'GET',
        url,
        headers,
        ...(o.ip === undefined ? {} : { remoteAddress: o.ip }),
        ...(o.body === undefined ? {} : { payload: typeof o.body === 'string' ? o.body : (o.body as object) }),
      });
    },
    keyFor: (tier, o = {}) =>
      issueAccountKey(store.sql, { email: o.email ?? uniqueEmail(tier), tier, ...(o.agent_count === undefined ? {} : { agent_count: o.agent_count }) }),
    async outboxCode(email) {
      const [mail] = await readOutbox(store.sql, { limit: 1, recipient: email.toLowerCase(), retentionHours: config.outboxRetentionHours });
      const code = mail ? /verification code is (\d{6})\./.exec(mail.body)?.[1] : undefined;
      if (!code) throw new Error(`no verification code for ${email} in the outbox: ${mail ? mail.body.split('\n')[0] : 'no mail'}`);
      return code;
    },
    async close() {
      await app.close();
      await ctx.close();
      await store.close();
    },
  };
}

/** The body matches `schema` (the route's documented response), and has exactly `keys` when given. */
export function expectSchema(body: unknown, schema: object, keys?: string[]): void {
  expect(validatePart(schema, structuredClone(body), 'body'), JSON.stringify(body)).toEqual([]);
  if (keys) expect(Object.keys(body as object).sort()).toEqual([...keys].sort());
}

/** An error answer: its status, its code, and the documented error body. */
export function expectError(res: { statusCode: number; body: string; json(): any }, status: number, code: string): any {
  expect(res.statusCode, res.body).toBe(status);
  const body = res.json();
  expectSchema(body, errorBody);
  expect(body.code, res.body).toBe(code);
  return body;
}
