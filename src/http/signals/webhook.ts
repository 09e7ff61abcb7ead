/**
 * The webhook of the regime signal service (Pro): `PUT /v1/webhook` sets, replaces or removes it,
 * `GET /v1/webhook/info` shows it with its newest delivery, `GET /v1/webhook/test` sends a signed test
 * payload now. The URL passes the target guard (webhooks/target-guard.ts) when it is set and again at every
 * delivery. Deliveries of regime transitions are queued with the broadcast (webhooks/regime-change.ts) and
 * sent by the worker (webhooks/worker.ts).
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { notFound } from '../../core/errors.js';
import { secretKeeperFrom } from '../../secrets/stored-secret.js';
import { requireKey } from '../../signals/auth.js';
import type { SignalsContext } from '../../signals/context.js';
import { sendWebhook } from '../../signals/webhooks/send.js';
import { newWebhookSecret } from '../../signals/webhooks/signing.js';
import { getWebhook, lastDelivery, putWebhook, recordTest, removeWebhook, webhookSecret } from '../../signals/webhooks/store.js';
import { checkTarget, type Resolve } from '../../signals/webhooks/target-guard.js';
import { errorResponses, signalsKeySecurity } from './schemas.js';

/** The deadline of a test delivery: short, since the caller waits for it. */
export const TEST_TIMEOUT_MS = 5_000;

const tags = ['signals webhook'];
const nullableString = { type: ['string', 'null'] } as const;
const nullableTime = { type: ['string', 'null'], format: 'date-time' } as const;

const putBody = {
  type: 'object',
  required: ['url'],
  additionalProperties: false,
  properties: {
    url: { type: ['string', 'null'], minLength: 1, maxLength: 2048, description: 'An http(s) URL to POST events to; null removes the webhook' },
  },
} as const;

const putResponse = {
  type: 'object',
  required: ['url', 'secret'],
  properties: {
    url: { ...nullableString, description: 'The URL as it will be requested (normalised); null when removed' },
    secret: { ...nullableString, description: 'The signing secret (`whsec_…`), shown this once; every PUT makes a new one' },
  },
} as const;

const lastDeliveryBody = {
  type: ['object', 'null'],
  description: 'The newest delivery (events and tests); null when none was made',
  required: ['delivery_id', 'event', 'state', 'delivered', 'created_at', 'attempted_at', 'attempts', 'status', 'error', 'next_attempt_at'],
  properties: {
    delivery_id: { type: 'string', format: 'uuid' },
    event: { type: 'string', enum: ['regime_change', 'log_head', 'test'] },
    state: { type: 'string', enum: ['pending', 'delivered', 'failed'] },
    delivered: { type: 'boolean', description: 'The receiver answered 2xx' },
    created_at: { type: 'string', format: 'date-time' },
    attempted_at: { ...nullableTime, description: 'The last attempt; null before the first' },
    attempts: { type: 'integer' },
    status: { type: ['integer', 'null'], description: "The receiver's HTTP status at the last attempt; null when none came" },
    error: nullableString,
    next_attempt_at: { ...nullableTime, description: 'When the next retry is due; null once delivered or failed' },
  },
} as const;

const infoResponse = {
  type: 'object',
  required: ['url', 'created_at', 'last_delivery'],
  properties: {
    url: { ...nullableString, description: 'null: no webhook is set' },
    created_at: { ...nullableTime, description: 'When this URL and secret were set' },
    last_delivery: lastDeliveryBody,
  },
} as const;

const testResponse = {
  type: 'object',
  required: ['delivered', 'status', 'error', 'delivery_id'],
  properties: {
    delivered: { type: 'boolean', description: 'The receiver answered 2xx' },
    status: { type: ['integer', 'null'], description: "The receiver's HTTP status; null when none came" },
    error: { ...nullableString, description: 'Why it was not delivered (the status, a connection error, the deadline)' },
    delivery_id: { type: 'string', format: 'uuid', description: 'The `X-Signals-Delivery` header it carried' },
  },
} as const;

export interface WebhookRouteOptions {
  /** The resolver of the target guard (tests); the system's by default. */
  resolve?: Resolve;
}

export function webhookRoutes(app: FastifyInstance, ctx: SignalsContext, options: WebhookRouteOptions = {}): void {
  const pro = requireKey(ctx, 'pro');
  const guard = { allowPrivate: ctx.config.webhookAllowPrivate, ...(options.resolve ? { resolve: options.resolve } : {}) };
  const secrets = secretKeeperFrom(ctx.config);

  app.put<{ Body: { url: string | null } }>(
    '/v1/webhook',
    {
      onRequest: pro,
      schema: {
        operationId: 'putWebhook',
        tags,
        security: signalsKeySecurity,
        summary: 'Set the webhook URL (a new signing secret, shown once), or remove it with url: null',
        description:
          'The URL must be http(s); unless the server allows private targets, its host must not be or resolve to a loopback, private, link-local, CGNAT or cloud metadata address (422 `webhook_target_refused` naming `url`). Every PUT makes a new secret: the old one stops signing at once.',
        body: putBody,
        response: { 200: putResponse, ...errorResponses(401, 403, 413, 415, 422, 429) },
      },
    },
    async (req) => {
      const accountId = req.signalsKey!.account_id;
      if (req.body.url === null) {
        await removeWebhook(ctx.sql, accountId);
        return { url: null, secret: null };
      }
      const target = await checkTarget(req.body.url, guard);
      const secret = newWebhookSecret();
      const row = await putWebhook(ctx.sql, secrets, accountId, target.url.href, secret);
      return { url: row.url, secret };
    },
  );

  app.get(
    '/v1/webhook/info',
    {
      onRequest: pro,
      schema: {
        operationId: 'getWebhookInfo',
        tags,
        security: signalsKeySecurity,
        summary: 'The webhook URL, when it was set, and its newest delivery (never the secret)',
        response: { 200: infoResponse, ...errorResponses(401, 403, 429) },
      },
    },
    async (req) => {
      const accountId = req.signalsKey!.account_id;
      const [hook, last] = await Promise.all([getWebhook(ctx.sql, accountId), lastDelivery(ctx.sql, accountId)]);
      return { url: hook?.url ?? null, created_at: hook?.created_at ?? null, last_delivery: last };
    },
  );

  app.get(
    '/v1/webhook/test',
    {
      onRequest: pro,
      schema: {
        operationId: 'testWebhook',
        tags,
        security: signalsKeySecurity,
        summary: 'Send a signed test payload to the webhook now and say whether the receiver took it (2xx)',
        description: `Synchronous, with a ${TEST_TIMEOUT_MS / 1000} s deadline. A receiver that is down or answers non-2xx gives \`delivered: false\` with its status or the error, not an error response. The test is recorded (\`last_delivery\` of the info) and never retried. 404 when no webhook is set; 422 \`webhook_target_refused\` when its host now resolves to a refused address.`,
        response: { 200: testResponse, ...errorResponses(401, 403, 404, 422, 429) },
      },
    },
    async (req) => {
      const accountId = req.signalsKey!.account_id;
      const hook = await getWebhook(ctx.sql, accountId);
      if (!hook) throw notFound('no webhook is set for this account', 'set one with PUT /v1/webhook {"url": "https://…"}');
      // Refused targets answer 422 here, with the reason; the attempt itself checks again and pins the address.
      await checkTarget(hook.url, guard);
      const deliveryId = randomUUID();
      const payload = {
        id: randomUUID(),
        type: 'test',
        created_at: new Date(ctx.now()).toISOString(),
        message: 'A test delivery of the regime signal service webhook.',
      };
      const target = { url: hook.url, secret: await webhookSecret(secrets, accountId, hook) };
      const r = await sendWebhook(target, { deliveryId, event: 'test', body: JSON.stringify(payload) }, { ...guard, timeoutMs: TEST_TIMEOUT_MS });
      await recordTest(ctx.sql, accountId, deliveryId, payload, r);
      return { delivered: r.delivered, status: r.status, error: r.error, delivery_id: deliveryId };
    },
  );
}
