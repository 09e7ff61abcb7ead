/**
 * The signal service's operator API, for owner keys (the tier `owner`): the keys and accounts
 * (`/v1/admin/keys`, `/v1/admin/tier`), the local mail outbox (`/v1/admin/outbox`) and the pipeline's runs
 * (`/v1/admin/pipeline-runs`, what `tradeseal pipeline status` shows). The same operations as
 * `tradeseal signals keys …` and `signals outbox` on the store (../../signals/ops/keys.ts), with the same input schemas, so
 * those commands work against a remote service with `--url` and an owner key. A secret is shown once, in the
 * answer that issues it; listings never carry one.
 */
import type { FastifyInstance } from 'fastify';
import { issueKeyInput, keyParams, listKeysQuery, outboxQuery, setTierInput, type IssueKeyInput, type SetTierInput } from '../../signals/account-inputs.js';
import { requireKey } from '../../signals/auth.js';
import type { SignalsContext } from '../../signals/context.js';
import { readOutbox } from '../../signals/mail/outbox.js';
import { pipelineRunsQuery } from '../../signals/inputs.js';
import { recentNights } from '../../signals/nightly/night-store.js';
import { recentRuns } from '../../signals/publish/run-lock.js';
import { normalizeEmail } from '../../signals/verification.js';
import { issueAccountKey, revokeKey, setTier } from '../../signals/ops/keys.js';
import { listKeys } from '../../signals/store/accounts.js';
import { TIERS } from '../../signals/tiers.js';
import { errorResponses, signalsKeySecurity } from './schemas.js';

const tags = ['signals operators'];
const dateTime = { type: 'string', format: 'date-time' } as const;
const nullableDateTime = { type: ['string', 'null'], format: 'date-time' } as const;
const tier = { type: 'string', enum: [...TIERS] } as const;
const uuid = { type: 'string', format: 'uuid' } as const;

const keyListing = {
  type: 'object',
  additionalProperties: false,
  required: ['key_id', 'key_prefix', 'account_id', 'email', 'tier', 'agent_count', 'created_at', 'revoked_at', 'last_used_at'],
  properties: {
    key_id: uuid,
    key_prefix: { type: 'string' },
    account_id: uuid,
    email: { type: 'string' },
    tier,
    agent_count: { type: 'integer' },
    created_at: dateTime,
    revoked_at: nullableDateTime,
    last_used_at: nullableDateTime,
  },
} as const;

const issuedKey = {
  type: 'object',
  additionalProperties: false,
  required: ['api_key', 'key_id', 'key_prefix', 'account_id', 'email', 'tier', 'agent_count', 'account_created', 'created_at'],
  properties: {
    api_key: { type: 'string', description: 'the secret, shown this once' },
    key_id: uuid,
    key_prefix: { type: 'string' },
    account_id: uuid,
    email: { type: 'string' },
    tier,
    agent_count: { type: 'integer' },
    account_created: { type: 'boolean' },
    created_at: dateTime,
  },
} as const;

const revoked = {
  type: 'object',
  additionalProperties: false,
  required: ['key_id', 'key_prefix', 'email', 'revoked_at', 'revoked_now'],
  properties: {
    key_id: uuid,
    key_prefix: { type: 'string' },
    email: { type: 'string' },
    revoked_at: dateTime,
    revoked_now: { type: 'boolean', description: 'false when it was revoked before' },
  },
} as const;

const tierChange = {
  type: 'object',
  additionalProperties: false,
  required: ['account_id', 'email', 'tier', 'agent_count', 'previous_tier', 'previous_agent_count'],
  properties: {
    account_id: uuid,
    email: { type: 'string' },
    tier,
    agent_count: { type: 'integer' },
    previous_tier: tier,
    previous_agent_count: { type: 'integer' },
  },
} as const;

const outboxMessage = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'created_at', 'recipient', 'subject', 'body'],
  properties: { id: { type: 'integer' }, created_at: dateTime, recipient: { type: 'string' }, subject: { type: 'string' }, body: { type: 'string' } },
} as const;

const day = { type: ['string', 'null'], format: 'date' } as const;
const pipelineRun = {
  type: 'object',
  additionalProperties: false,
  required: [
    'run_id',
    'started_at',
    'finished_at',
    'status',
    'as_of',
    'model_version',
    'seed',
    'days',
    'first_day',
    'last_day',
    'pca_fit_date',
    'hmm_fit_date',
    'timings_ms',
    'error',
    'publish_plan',
    'confirmed_by',
  ],
  properties: {
    run_id: uuid,
    started_at: dateTime,
    finished_at: nullableDateTime,
    status: { type: 'string', description: 'running, published, computed (a what-if), failed, or abandoned' },
    as_of: day,
    model_version: { type: 'string' },
    seed: { type: 'integer' },
    days: { type: ['integer', 'null'] },
    first_day: day,
    last_day: day,
    pca_fit_date: day,
    hmm_fit_date: day,
    timings_ms: { type: ['object', 'null'], additionalProperties: { type: 'number' } },
    error: { type: ['string', 'null'] },
    publish_plan: {
      type: ['object', 'null'],
      additionalProperties: true,
      description: 'what the publication did to the history: days added, rewritten, removed',
    },
    confirmed_by: { type: ['string', 'null'], description: 'who confirmed a publication that rewrote or removed published days' },
  },
} as const;

const pipelineNight = {
  type: 'object',
  additionalProperties: false,
  required: ['night_id', 'started_at', 'due_day', 'deadline', 'status', 'attempts', 'reason', 'late', 'fetched', 'error_code', 'run_id', 'finished_at'],
  properties: {
    night_id: uuid,
    started_at: dateTime,
    due_day: { type: 'string', format: 'date', description: 'the newest trading day due when the night started' },
    deadline: dateTime,
    status: {
      type: 'string',
      enum: ['running', 'published', 'late', 'refused', 'failed', 'abandoned'],
      description: '`abandoned`: still `running` an hour past its deadline, its process gone',
    },
    attempts: { type: 'integer' },
    reason: {
      type: ['string', 'null'],
      description: "why the day is not (yet) published: the late series and the rows they lack, a source's error, a refusal",
    },
    late: {
      type: ['array', 'null'],
      items: { type: 'object', additionalProperties: true },
      description: 'the late series of the last try: series, file, last_row, needed_row, released_at, rule',
    },
    fetched: {
      type: ['object', 'null'],
      additionalProperties: true,
      description: 'what the last fetch wrote, by file: source, fetched_at, sha256, rows, last_date, added, revisions',
    },
    error_code: { type: ['string', 'null'] },
    run_id: { ...uuid, type: ['string', 'null'] },
    finished_at: nullableDateTime,
  },
} as const;

const ownerErrors = errorResponses(401, 403, 429);

export function adminRoutes(app: FastifyInstance, ctx: SignalsContext): void {
  const owner = requireKey(ctx, 'owner');

  app.get<{ Querystring: { email?: string } }>(
    '/v1/admin/keys',
    {
      onRequest: owner,
      schema: {
        operationId: 'listSignalKeys',
        tags,
        security: signalsKeySecurity,
        summary: 'The API keys (never their secrets), of one account with `email`',
        querystring: listKeysQuery,
        response: {
          200: {
            type: 'object',
            additionalProperties: false,
            required: ['count', 'keys'],
            properties: { count: { type: 'integer' }, keys: { type: 'array', items: keyListing } },
          },
          ...ownerErrors,
          ...errorResponses(422),
        },
      },
    },
    async (req) => {
      const keys = await listKeys(ctx.sql, { email: req.query.email === undefined ? undefined : normalizeEmail(req.query.email) });
      return { count: keys.length, keys };
    },
  );

  app.post<{ Body: IssueKeyInput }>(
    '/v1/admin/keys',
    {
      onRequest: owner,
      schema: {
        operationId: 'issueSignalKey',
        tags,
        security: signalsKeySecurity,
        summary: 'Issue a key for an account (created with the tier when it does not exist); the secret is in this answer only',
        body: issueKeyInput,
        response: { 201: issuedKey, ...ownerErrors, ...errorResponses(409, 413, 415, 422) },
      },
    },
    async (req, reply) => reply.code(201).send(await issueAccountKey(ctx.sql, req.body)),
  );

  app.post<{ Params: { key_id: string } }>(
    '/v1/admin/keys/:key_id/revoke',
    {
      onRequest: owner,
      schema: {
        operationId: 'revokeSignalKey',
        tags,
        security: signalsKeySecurity,
        summary: 'Revoke a key at once (every server refuses it within ENGINE_STATE_REFRESH_MS); revoking it again changes nothing',
        params: keyParams,
        response: { 200: revoked, ...ownerErrors, ...errorResponses(400, 404, 422) },
      },
    },
    async (req) => {
      const revoked = await revokeKey(ctx.sql, req.params.key_id);
      // Refused by every worker of this server before this answer (other servers: src/credentials/notify.ts).
      await ctx.changes.held({ kind: 'signals_key', key_id: revoked.key_id });
      return revoked;
    },
  );

  app.post<{ Body: SetTierInput }>(
    '/v1/admin/tier',
    {
      onRequest: owner,
      schema: {
        operationId: 'setSignalTier',
        tags,
        security: signalsKeySecurity,
        summary: 'Set the tier (and agent count) of the account of a key_id or an e-mail',
        body: setTierInput,
        response: { 200: tierChange, ...ownerErrors, ...errorResponses(404, 413, 415, 422) },
      },
    },
    async (req) => {
      const change = await setTier(ctx.sql, req.body);
      await ctx.changes.held({ kind: 'signals_account', account_id: change.account_id });
      return change;
    },
  );

  app.get<{ Querystring: { limit: number } }>(
    '/v1/admin/pipeline-runs',
    {
      onRequest: owner,
      schema: {
        operationId: 'listPipelineRuns',
        tags,
        security: signalsKeySecurity,
        summary:
          "The pipeline's runs and the nightly job's nights, newest first: status, days, the fit dates, timings, what each publication changed, the error of a failed one; a night's due day, its tries and why it is late",
        querystring: pipelineRunsQuery,
        response: {
          200: {
            type: 'object',
            additionalProperties: false,
            required: ['runs', 'nights'],
            properties: { runs: { type: 'array', items: pipelineRun }, nights: { type: 'array', items: pipelineNight } },
          },
          ...ownerErrors,
          ...errorResponses(422),
        },
      },
    },
    async (req) => ({ runs: await recentRuns(ctx.sql, req.query.limit), nights: await recentNights(ctx.sql, req.query.limit) }),
  );

  app.get<{ Querystring: { limit: number; to?: string } }>(
    '/v1/admin/outbox',
    {
      onRequest: owner,
      schema: {
        operationId: 'listSignalOutbox',
        tags,
        security: signalsKeySecurity,
        summary:
          'The mail kept in the local outbox (without SMTP_URL), newest last; this read delivers it: a verification code is shown once, within its 15 minutes, then reads `[removed]`',
        querystring: outboxQuery,
        response: {
          200: {
            type: 'object',
            additionalProperties: false,
            required: ['count', 'messages'],
            properties: { count: { type: 'integer' }, messages: { type: 'array', items: outboxMessage } },
          },
          ...ownerErrors,
          ...errorResponses(422),
        },
      },
    },
    async (req) => {
      const messages = await readOutbox(ctx.sql, {
        limit: req.query.limit,
        recipient: req.query.to === undefined ? undefined : normalizeEmail(req.query.to),
        retentionHours: ctx.config.outboxRetentionHours,
      });
      return { count: messages.length, messages };
    },
  );
}
