/**
 * Registration and key rotation (docs/decisions/0019-registration-code.md): `POST /v1/auth/register` (public)
 * mails a 6-digit code, `POST /v1/auth/verify` (public) turns it into an account on the free tier and its
 * first key, `POST /v1/auth/rotate` (any key) revokes the presented key and returns its replacement. The rules
 * are the operations' (../../signals/ops/registration.ts, ../../signals/ops/keys.ts); mail goes through ../../signals/mail/mailer.ts.
 *
 * Rotate is "header only": it is answered whatever the request's content type says as long as it carries no
 * body (curl's `-X POST`, a client that always sends `Content-Type: application/json`, an empty form). A
 * body is refused (422), but an empty JSON object is no body.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isTradesealError, validationError } from '../../core/errors.js';
import { publicBaseUrl } from '../../core/public-base-url.js';
import { registerBody, verifyBody, type RegisterInput, type VerifyInput } from '../../signals/account-inputs.js';
import { requireKey } from '../../signals/auth.js';
import type { SignalsContext } from '../../signals/context.js';
import { createMailer } from '../../signals/mail/mailer.js';
import { rotateKey } from '../../signals/ops/keys.js';
import { register, verify } from '../../signals/ops/registration.js';
import { codeHasherFrom } from '../../signals/verification-key.js';
import { registeredBody, rotatedBody, verifiedBody } from './account-schemas.js';
import { errorResponses, signalsKeySecurity } from './schemas.js';

const tags = ['signals accounts'];

export function authRoutes(app: FastifyInstance, ctx: SignalsContext): void {
  const mailer = createMailer(ctx.config, ctx.sql);
  const codes = codeHasherFrom(ctx.sql, ctx.config);
  const registrationLimits = { perClient: ctx.config.registerPerClientPerHour, total: ctx.config.registerTotalPerHour };
  app.addHook('onClose', async () => mailer.close());

  app.post<{ Body: RegisterInput }>(
    '/v1/auth/register',
    {
      schema: {
        operationId: 'registerAccount',
        tags,
        security: [],
        summary: 'Register an e-mail address: a 6-digit code is mailed to it (valid 15 minutes)',
        description:
          "Always 202 for a valid address, whether or not it already has an account (one that has gets a mail saying so and how to rotate its key, not a code). A new register replaces the address's earlier code; at most one mail a minute goes to an address, at most REGISTER_PER_CLIENT_PER_HOUR an hour are sent for one client address and REGISTER_TOTAL_PER_HOUR in all (429 `rate_limited` beyond them, with `retry_at` and `Retry-After`). 503 `service_unavailable` when the mail cannot be sent; nothing is kept then, so the request can simply be repeated.",
        body: registerBody,
        response: { 202: registeredBody, ...errorResponses(413, 415, 422, 429, 503) },
      },
    },
    async (req, reply) => {
      const client = { baseUrl: publicBaseUrl(ctx.config), ip: req.ip, limits: registrationLimits };
      try {
        return reply.code(202).send(await register(ctx.sql, mailer, codes, client, req.body));
      } catch (err) {
        const retryAt = isTradesealError(err) && err.code === 'rate_limited' ? err.extra?.retry_at : undefined;
        if (typeof retryAt === 'string') void reply.header('retry-after', String(secondsUntil(retryAt, Date.now())));
        throw err;
      }
    },
  );

  app.post<{ Body: VerifyInput }>(
    '/v1/auth/verify',
    {
      schema: {
        operationId: 'verifyRegistration',
        tags,
        security: [],
        summary: 'Verify the mailed code: creates the account (free tier) and returns its first API key, once',
        description:
          '422 `verification_failed` for a wrong code (each counts a try), an expired one, one after five wrong tries (then even the right code fails until a new register), or none pending. Of concurrent verifications of one code exactly one creates the account.',
        body: verifyBody,
        response: { 201: verifiedBody, ...errorResponses(413, 415, 422) },
      },
    },
    async (req, reply) => reply.code(201).send(await verify(ctx.sql, codes, req.body)),
  );

  // Its own scope, for a content-type parser that takes any type: the request has no body to parse.
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string' }, (_req: FastifyRequest, body: string | Buffer, done: (err: Error | null, body?: unknown) => void) => {
      const problems = bodyProblems(String(body));
      if (problems.length > 0) done(validationError(problems, 'the rotate request takes no body: send only the X-Signals-Key header'));
      else done(null, undefined);
    });

    scope.post(
      '/v1/auth/rotate',
      {
        onRequest: requireKey(ctx, 'key'),
        schema: {
          operationId: 'rotateKey',
          tags,
          security: signalsKeySecurity,
          summary: 'Rotate the presented key: it is revoked at once, and a new key is returned once',
          description:
            "No body (any content type). The new key keeps the old one's tier, its rolling 24-hour window and its IP lock. A request with the old key afterwards is 403 `key_revoked`.",
          response: { 200: rotatedBody, ...errorResponses(401, 403, 413, 422, 429) },
        },
      },
      async (req) => {
        const change = { kind: 'signals_key', key_id: req.signalsKey!.key_id } as const;
        try {
          const rotated = await rotateKey(ctx.sql, req.signalsKey!);
          // The old key is refused by every worker of this server before the new one is handed out.
          await ctx.changes.held(change);
          return rotated;
        } catch (err) {
          // Rotated meanwhile by another request: this answer says so, so it too waits until that holds everywhere.
          if (isTradesealError(err) && err.code === 'key_revoked') await ctx.changes.held(change);
          throw err;
        }
      },
    );
  });
}

/** `Retry-After` (RFC 9110 §10.2.3): whole seconds from the wall clock until `at` (the database's time), at least 1. */
function secondsUntil(at: string, nowMs: number): number {
  return Math.max(1, Math.ceil((Date.parse(at) - nowMs) / 1000));
}

/** What is wrong with a body sent to a route that takes none: nothing for an empty one or `{}`. */
function bodyProblems(text: string): Array<{ field: string; message: string }> {
  if (text.trim() === '') return [];
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return [{ field: 'body', message: 'must be empty' }];
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [{ field: 'body', message: 'must be empty' }];
  return Object.keys(value).map((field) => ({ field, message: 'is not a known field' }));
}
