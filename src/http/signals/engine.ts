/**
 * The engine tier routes of the regime signal service:
 *
 * - `GET /v1/engine/heartbeat` (engine_sidecar, engine_audit, owner): a signed heartbeat of the regime
 *   broadcast in force, fetched by an agent right before each Layer 2 authorize. It is on every authorize's
 *   path, so it costs at most one statement (src/signals/heartbeat.ts; concurrent requests share one), the
 *   key's admission is cached briefly (src/signals/admission-cache.ts), and it signs with node:crypto and a
 *   key loaded once, when the server gets ready. With no broadcast at all it answers 503 `pipeline_lag`
 *   (retry later), the service's answer while nothing is published; it goes on issuing while a pipeline run
 *   publishes, since the engine enforces the broadcast in force whatever the run does.
 * - `GET /v1/engine/audit` (engine_audit, accounts with at least AUDIT_MIN_AGENTS agents): the audit
 *   decomposition of the newest published day (src/signals/audit.ts); 503 `pipeline_lag` like the data routes.
 */
import type { FastifyInstance } from 'fastify';
import { forbidden, TradesealError } from '../../core/errors.js';
import { decompose } from '../../signals/audit.js';
import { requireKey } from '../../signals/auth.js';
import type { SignalsContext } from '../../signals/context.js';
import { BatchedDraws, HeartbeatSigner } from '../../signals/heartbeat.js';
import { loadSigningKey, publicKeyForms } from '../../signals/signing-key.js';
import { auditInputs } from '../../signals/store/audit.js';
import { AUDIT_MIN_AGENTS } from '../../signals/tiers.js';
import { auditSchema, heartbeatSchema } from './engine-schemas.js';
import { errorResponses, signalsKeySecurity } from './schemas.js';

/** How long the start waits for the heartbeat signing key: ample for a store that answers, short of a stall. */
export const KEY_AT_START_MS = 2000;

export function engineTierRoutes(app: FastifyInstance, ctx: SignalsContext): void {
  const tags = ['signals engine'];
  const draws = new BatchedDraws(ctx.sql);
  const draw = () => draws.draw();
  // Loaded once per process; a failed load (the store away at start) is retried by the next request.
  let signer: Promise<HeartbeatSigner> | null = null;
  const getSigner = (): Promise<HeartbeatSigner> => {
    signer ??= loadSigningKey(ctx.sql, ctx.config).then(
      (key) => {
        if (key.created) {
          app.log.warn(
            `generated the heartbeat signing key and kept it in the store; its public key (the engine's REGIME_OPERATOR_PUBKEY) is ${publicKeyForms(key.publicKey).hex} (\`tradeseal signals heartbeat-key\` prints it)`,
          );
        }
        return new HeartbeatSigner(key.secretKey, ctx.config.heartbeatSignatureScheme);
      },
      (err: unknown) => {
        signer = null;
        throw err;
      },
    );
    return signer;
  };
  // The stored key is created on the first start, not on the first heartbeat. A store that is away at start
  // does not stop the server (its health check says so); the first heartbeat request loads the key then. Nor
  // does a store that stalls: the start waits for the key at most KEY_AT_START_MS, then goes on while the
  // load does (a heartbeat request meanwhile waits for that same load, within its request deadline).
  app.addHook('onReady', async () => {
    const loaded = getSigner().then(
      () => true,
      (err: unknown) => {
        app.log.warn({ err }, 'the heartbeat signing key could not be loaded at start; the first heartbeat request retries');
        return true;
      },
    );
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), KEY_AT_START_MS)));
    const done = await Promise.race([loaded, waited]);
    clearTimeout(timer);
    if (!done)
      app.log.warn(
        `the heartbeat signing key did not load within ${KEY_AT_START_MS / 1000} s of the start (the store is slow to answer); the start goes on, and the load with it`,
      );
  });

  app.get(
    '/v1/engine/heartbeat',
    {
      onRequest: requireKey(ctx, 'engine'),
      schema: {
        operationId: 'getEngineHeartbeat',
        tags,
        security: signalsKeySecurity,
        summary: 'A signed heartbeat of the regime broadcast in force, for one Layer 2 authorize of the compliance engine',
        description:
          "Fetch a fresh one right before each authorize: the engine accepts each `sequence_id` once, only above the last one it accepted from the agent, and only within its replay window (30 s by default) of `timestamp_ms`. The signature verifies against the public key printed by `tradeseal signals heartbeat-key` (the engine's REGIME_OPERATOR_PUBKEY).",
        response: { 200: heartbeatSchema, ...errorResponses(401, 403, 429, 503) },
      },
    },
    async () => {
      const hb = await (await getSigner()).issue(draw, ctx.now);
      if (!hb) {
        throw new TradesealError('pipeline_lag', 'no regime broadcast is published yet: there is nothing to sign', {
          hint: 'retry once the pipeline has run, or an operator has published a broadcast (`tradeseal regime publish`)',
        });
      }
      return hb;
    },
  );

  app.get(
    '/v1/engine/audit',
    {
      onRequest: requireKey(ctx, 'engine_audit'),
      schema: {
        operationId: 'getEngineAudit',
        tags,
        security: signalsKeySecurity,
        summary: `The audit decomposition of the newest published day (engine_audit accounts with at least ${AUDIT_MIN_AGENTS} agents)`,
        description:
          "Factor attribution, stress indicators, net liquidity, the HMM's transition probabilities from the day's regime and the model's health, computed from what the nightly run published. The README's \"Heartbeats and the audit decomposition\" defines every field.",
        response: { 200: auditSchema, ...errorResponses(401, 403, 429, 503) },
      },
    },
    async (req) => {
      const key = req.signalsKey!;
      if (key.agent_count < AUDIT_MIN_AGENTS) {
        throw forbidden(
          'audit_requires_agents',
          `the audit decomposition needs an account with at least ${AUDIT_MIN_AGENTS} agents; this one has ${key.agent_count}`,
        );
      }
      const newest = await ctx.data.assertServable();
      const inputs = await auditInputs(ctx.sql, newest);
      if (!inputs)
        throw new TradesealError('pipeline_lag', `the newest published day ${newest} is being replaced by a pipeline run`, { hint: 'retry in a few seconds' });
      return decompose(inputs, { generatedAt: new Date(ctx.now()), agentCount: key.agent_count });
    },
  );
}
