/**
 * The keyed data routes of the regime signal service: the signal package of the newest day, of a date, of a
 * range of dates, and the compact history. Every one answers 503 `pipeline_lag` while there is nothing to
 * serve, 403 `history_limit` for dates older than the key's tier reads, and 404 for a date without data.
 */
import type { FastifyInstance } from 'fastify';
import { notFound } from '../../core/errors.js';
import { requireKey } from '../../signals/auth.js';
import type { SignalsContext } from '../../signals/context.js';
import { signalDateParams, signalHistoryQuery, signalRangeQuery, RANGE_MAX_DAYS } from '../../signals/inputs.js';
import { checkDateRange, checkWindowLength } from '../../signals/ops/date-range.js';
import { assertReadable, clampDays } from '../../signals/ops/history-limit.js';
import { compactRows, latestSignal, signalOn, signalsBetween } from '../../signals/store/published.js';
import { signalPackage } from '../../signals/views.js';
import { compactRow, signalPackageSchema } from './data-schemas.js';
import { errorResponses, signalsKeySecurity } from './schemas.js';

export function dataRoutes(app: FastifyInstance, ctx: SignalsContext): void {
  const keyed = requireKey(ctx, 'key');
  let latest: { date: string; run: string | null; body: Record<string, unknown> } | null = null;
  const tags = ['signals data'];

  app.get(
    '/v1/signals/latest',
    {
      onRequest: keyed,
      schema: {
        operationId: 'getLatestSignal',
        tags,
        security: signalsKeySecurity,
        summary: 'The signal package of the newest published trading day',
        response: { 200: signalPackageSchema, ...errorResponses(401, 403, 429, 503) },
      },
    },
    async () => {
      // The newest package changes only when a run publishes: kept per publishing run (as fresh as the data
      // state, ENGINE_STATE_REFRESH_MS), so the route costs the key's admission and no read of its own.
      const { newest, newestRun } = await ctx.data.servable();
      if (latest && latest.date === newest && latest.run === newestRun) return latest.body;
      const row = await latestSignal(ctx.sql);
      if (!row) throw notFound('no published day');
      latest = { date: row.date, run: newestRun, body: signalPackage(row) };
      return latest.body;
    },
  );

  app.get<{ Querystring: { start: string; end: string } }>(
    '/v1/signals/range',
    {
      onRequest: keyed,
      schema: {
        operationId: 'getSignalRange',
        tags,
        security: signalsKeySecurity,
        summary: `The signal packages of the published days between two dates (inclusive), at most ${RANGE_MAX_DAYS} calendar days`,
        querystring: signalRangeQuery,
        response: { 200: { type: 'array', items: signalPackageSchema }, ...errorResponses(401, 403, 422, 429, 503) },
      },
    },
    async (req) => {
      const { start, end } = req.query;
      checkDateRange(start, end);
      checkWindowLength(start, end, RANGE_MAX_DAYS);
      const newest = await ctx.data.assertServable();
      assertReadable(req.signalsKey!.tier, newest, start);
      return (await signalsBetween(ctx.sql, start, end)).map(signalPackage);
    },
  );

  app.get<{ Querystring: { days: number } }>(
    '/v1/signals/history',
    {
      onRequest: keyed,
      schema: {
        operationId: 'getSignalHistory',
        tags,
        security: signalsKeySecurity,
        summary: "The compact history of the last `days` published days, oldest first (clamped to the key's tier: Free 30, Starter 180)",
        querystring: signalHistoryQuery,
        response: { 200: { type: 'array', items: compactRow }, ...errorResponses(401, 403, 422, 429, 503) },
      },
    },
    async (req) => {
      await ctx.data.assertServable();
      // Oldest first, like a time series; the last row is the newest day.
      return (await compactRows(ctx.sql, { limit: clampDays(req.signalsKey!.tier, req.query.days) })).reverse();
    },
  );

  app.get<{ Params: { date: string } }>(
    '/v1/signals/:date',
    {
      onRequest: keyed,
      schema: {
        operationId: 'getSignalOnDate',
        tags,
        security: signalsKeySecurity,
        summary: 'The signal package of one trading day (404 on a weekend, a holiday, or before the data start)',
        params: signalDateParams,
        response: { 200: signalPackageSchema, ...errorResponses(400, 401, 403, 404, 422, 429, 503) },
      },
    },
    async (req) => {
      const newest = await ctx.data.assertServable();
      assertReadable(req.signalsKey!.tier, newest, req.params.date);
      const row = await signalOn(ctx.sql, req.params.date);
      if (!row) throw notFound(`no published data for ${req.params.date} (not a trading day, or outside the published history to ${newest})`);
      return signalPackage(row);
    },
  );
}
