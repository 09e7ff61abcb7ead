/**
 * `POST /engine/admin/reconcile` (owner): reconcile the engine's traces with an exchange drop copy
 * (src/engine/reconcile/reconcile.ts says what each count means).
 */
import type { FastifyInstance } from 'fastify';
import { hashJson } from '../../core/crypto/hash.js';
import { actorOf, requireToken } from '../../engine/auth.js';
import type { EngineContext } from '../../engine/context.js';
import { comparisonSettings } from '../../engine/reconcile/compare.js';
import { reconcile } from '../../engine/reconcile/reconcile.js';
import { reconcileBody, type ReconcileRequest } from '../../engine/reconcile/schema.js';
import { bearer, dateTime, errorResponses, hex64, uuid } from '../../engine/schemas.js';
import { differenceSchema } from './trace-schemas.js';

const AGENT_ID = '6f1c2a9e-3b4d-4e8f-9a0b-1c2d3e4f5a6b';

const requestExample = {
  executions: [
    {
      exchange_tx_id: 'XNAS-20260105-000123',
      client_order_id: 'ord-20260105-0001',
      asset: 'AAPL',
      side: 'Long',
      quantity: 100,
      price: 190,
      agent_id: AGENT_ID,
      execution_time: '2026-01-05T14:30:00.412Z',
    },
    {
      exchange_tx_id: 'XNAS-20260105-000124',
      asset: 'MSFT',
      side: 'Short',
      quantity: 50,
      price: 410.5,
      agent_id: AGENT_ID,
      execution_time: '2026-01-05T15:02:11.007Z',
    },
  ],
};

const responseExample = {
  executions: 2,
  window: { from: '2026-01-05T14:30:00.412Z', to: '2026-01-05T15:02:11.007Z' },
  agent_ids: [AGENT_ID],
  drop_copy_hash: hashJson(requestExample.executions),
  counts: { matched: 1, divergent: 0, orphans_created: 1, already_known: 0, missing: 1 },
  matched: [{ exchange_tx_id: 'XNAS-20260105-000123', trace_id: '0b1e6a36-7d0e-4c53-9b46-1f1a3f6b2c11', agent_id: AGENT_ID }],
  orphans_created: [{ exchange_tx_id: 'XNAS-20260105-000124', trace_id: '5c2d7e19-8a4b-4f6c-9d1e-2f3a4b5c6d7e', agent_id: AGENT_ID }],
  already_known: [],
  divergent: [],
  missing: [
    {
      trace_id: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
      agent_id: AGENT_ID,
      exchange_tx_id: 'XNAS-20260105-000119',
      execution_time: '2026-01-05T14:55:40.000Z',
    },
  ],
  audit_entry_id: '7e6d5c4b-3a29-4e8f-9d0c-1b2a3f4e5d6c',
};

const execution = {
  type: 'object',
  required: ['exchange_tx_id', 'trace_id', 'agent_id'],
  properties: { exchange_tx_id: { type: 'string' }, trace_id: uuid, agent_id: uuid },
} as const;

export function reconcileRoutes(app: FastifyInstance, ctx: EngineContext): void {
  app.post<{ Body: ReconcileRequest }>(
    '/engine/admin/reconcile',
    {
      onRequest: requireToken(ctx, 'owner'),
      schema: {
        tags: ['engine admin'],
        operationId: 'reconcile',
        security: bearer,
        summary: 'Reconcile the traces with an exchange drop copy: each execution no trace was bound to becomes an ORPHAN trace',
        description:
          'An execution whose `exchange_tx_id` a trace was bound with, or that names an authorized order (ClOrdID), is compared with the authorization and the bind: `matched`, or `divergent` with the fields that differ; one recorded as an orphan before is `already_known`; any other becomes one ORPHAN trace. ' +
          "A trace bound to an execution of the drop copy's agents (or `agent_ids`) within its window (its first to last `execution_time`, or `from`..`to`, inclusive) whose `exchange_tx_id` " +
          'the drop copy does not list is `missing`. The same drop copy again creates nothing new. A `reconcile` entry of the audit log records the counts.',
        body: { ...reconcileBody, examples: [requestExample] },
        response: {
          200: {
            type: 'object',
            description: 'What the drop copy and the traces agree and disagree on',
            required: [
              'executions',
              'window',
              'agent_ids',
              'drop_copy_hash',
              'counts',
              'matched',
              'divergent',
              'orphans_created',
              'already_known',
              'missing',
              'audit_entry_id',
            ],
            properties: {
              executions: { type: 'integer', description: 'executions in the drop copy' },
              window: {
                type: 'object',
                required: ['from', 'to'],
                properties: { from: dateTime, to: dateTime },
                description: 'where bound traces were expected, inclusive',
              },
              agent_ids: { type: 'array', items: uuid, description: 'whose bound traces were expected' },
              drop_copy_hash: { ...hex64, description: 'SHA-256 of the JCS of `executions`: the same drop copy gives the same hash' },
              counts: {
                type: 'object',
                required: ['matched', 'divergent', 'orphans_created', 'already_known', 'missing'],
                properties: {
                  matched: { type: 'integer' },
                  divergent: { type: 'integer' },
                  orphans_created: { type: 'integer' },
                  already_known: { type: 'integer' },
                  missing: { type: 'integer' },
                },
              },
              matched: {
                type: 'array',
                items: execution,
                description:
                  'executions of an authorized trace (bound with their exchange_tx_id, or naming its order) that agree with its authorization and bind',
              },
              divergent: {
                type: 'array',
                description: 'executions of an authorized trace that differ from its authorization or bind, with the fields that differ',
                items: {
                  ...execution,
                  required: [...execution.required, 'differences'],
                  properties: { ...execution.properties, differences: { type: 'array', items: differenceSchema } },
                },
              },
              orphans_created: { type: 'array', items: execution, description: 'executions recorded now as ORPHAN traces' },
              already_known: { type: 'array', items: execution, description: 'executions an earlier reconciliation recorded as ORPHAN traces' },
              missing: {
                type: 'array',
                description: 'bound traces of the window whose execution the drop copy does not list',
                items: {
                  type: 'object',
                  required: ['trace_id', 'agent_id', 'exchange_tx_id', 'execution_time'],
                  properties: { trace_id: uuid, agent_id: uuid, exchange_tx_id: { type: 'string' }, execution_time: dateTime },
                },
              },
              audit_entry_id: { ...uuid, description: 'the `reconcile` entry of the audit log' },
            },
            examples: [responseExample],
          },
          ...errorResponses(401, 403, 413, 415, 422),
        },
      },
    },
    async (req) =>
      reconcile(ctx.sql, req.body, {
        actor: actorOf(req.principal),
        policy: ctx.policy,
        now: new Date(ctx.now()),
        source: 'http',
        comparison: comparisonSettings(ctx.config),
      }),
  );
}
