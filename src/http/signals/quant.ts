/**
 * What quants and analysts call: the forecast (Starter and up), a backtest between two dates (Pro) and the
 * performance of the published regimes (any key); the exports are in ./export.ts. Each reads what the
 * nightly run published; a backtest's arithmetic runs on the service's in-memory copy of the published history.
 */
import type { FastifyInstance } from 'fastify';
import { TradesealError } from '../../core/errors.js';
import { requireKey } from '../../signals/auth.js';
import type { SignalsContext } from '../../signals/context.js';
import { backtestBody, forecastQuery, performanceQuery, type RecordBasis } from '../../signals/inputs.js';
import { backtest } from '../../signals/ops/backtest.js';
import { performanceOn, RecordCache } from '../../signals/ops/track-record.js';
import { latestForecast, latestReports } from '../../signals/store/quant.js';
import { sliceForecast } from '../../../pipeline/reports/forecast.js';
import { errorResponses, recordSchema, regimeName, signalsKeySecurity } from './schemas.js';

const number = { type: 'number' } as const;
const nullableNumber = { type: ['number', 'null'] } as const;
const date = { type: 'string', format: 'date' } as const;
const distribution = { type: 'object', properties: { expansion: number, recovery: number, tightening: number, risk_off: number } } as const;
const regimeFigures = {
  type: 'object',
  properties: { days: { type: 'integer' }, mean_daily_return: nullableNumber, annualized_return: nullableNumber, hit_rate: nullableNumber },
} as const;

const performanceSchema = {
  type: 'object',
  required: ['sharpe', 'max_drawdown', 'total_return', 'alpha', 'by_regime'],
  description:
    "Each regime's weight (expansion 1, recovery 0.75, tightening 0.25, risk_off 0) is taken as SPY exposure at the first SPY open at or after its publication (06:30 New York on the next NYSE trading day), held overnight into the next day and marked to market at the closes; a day earns (1 + e_gap·gap)(1 + e_day·day)(1 − c·|e_day − e_gap|) − 1, with c = cost_bps / 10000 and the first position free. Buy-and-hold (`benchmark`) is bought at the same first open.",
  properties: {
    first_day: { type: ['string', 'null'], format: 'date' },
    last_day: { type: ['string', 'null'], format: 'date' },
    days: { type: 'integer' },
    cost_bps: {
      type: 'number',
      description: 'The cost the returns are net of: basis points of wealth per unit of exposure change (SIGNAL_COST_BPS when the figures were computed)',
    },
    sharpe: nullableNumber,
    max_drawdown: nullableNumber,
    total_return: nullableNumber,
    alpha: nullableNumber,
    annual_return: nullableNumber,
    benchmark: {
      type: 'object',
      properties: { sharpe: nullableNumber, max_drawdown: nullableNumber, total_return: nullableNumber, annual_return: nullableNumber },
    },
    by_regime: { type: 'object', properties: { expansion: regimeFigures, recovery: regimeFigures, tightening: regimeFigures, risk_off: regimeFigures } },
    record: recordSchema,
  },
} as const;

export function quantRoutes(app: FastifyInstance, ctx: SignalsContext): void {
  const tags = ['signals quant'];
  const records = new RecordCache();

  app.get<{ Querystring: { horizon: number } }>(
    '/v1/forecast',
    {
      onRequest: requireKey(ctx, 'starter'),
      schema: {
        operationId: 'getForecast',
        tags,
        security: signalsKeySecurity,
        summary: 'The regime forecast for the next 1 to 10 business days (default 5): ARIMA(1,0,1) per probability column and for the risk score',
        querystring: forecastQuery,
        response: {
          200: {
            type: 'object',
            required: ['horizon', 'generated_at', 'forecast'],
            properties: {
              horizon: { type: 'integer' },
              generated_at: { type: 'string', description: 'ISO 8601 with an offset' },
              forecast: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['date', 'regime', 'confidence', 'risk_score', 'prob_expansion', 'prob_recovery', 'prob_tightening', 'prob_risk_off'],
                  properties: {
                    date,
                    regime: regimeName,
                    confidence: number,
                    risk_score: number,
                    prob_expansion: number,
                    prob_recovery: number,
                    prob_tightening: number,
                    prob_risk_off: number,
                  },
                },
              },
            },
          },
          ...errorResponses(401, 403, 422, 429, 503),
        },
      },
    },
    async (req) => {
      await ctx.data.assertServable();
      const published = await latestForecast(ctx.sql);
      if (!published) throw new TradesealError('pipeline_lag', 'no forecast is published yet');
      return sliceForecast(published, req.query.horizon);
    },
  );

  app.post<{ Body: { start: string; end: string } }>(
    '/v1/backtest',
    {
      onRequest: requireKey(ctx, 'pro'),
      schema: {
        operationId: 'runBacktest',
        tags,
        security: signalsKeySecurity,
        summary: 'A backtest of the published regimes between two dates (inclusive): the summary, and the regime strategy against buy-and-hold SPY',
        body: backtestBody,
        response: {
          200: {
            type: 'object',
            required: ['summary'],
            properties: {
              start: date,
              end: date,
              summary: {
                type: 'object',
                required: ['total_days', 'transitions', 'avg_persistence_days', 'mean_risk_score', 'regime_distribution'],
                properties: {
                  total_days: { type: 'integer' },
                  transitions: { type: 'integer' },
                  avg_persistence_days: number,
                  mean_risk_score: number,
                  regime_distribution: distribution,
                },
              },
              performance: performanceSchema,
            },
          },
          ...errorResponses(401, 403, 404, 413, 415, 422, 429, 503),
        },
      },
    },
    async (req) => {
      await ctx.data.assertServable();
      const { curve: _curve, days: _days, ...result } = await backtest(ctx.sql, req.body, ctx.config.signalCostBps, ctx.history);
      return result;
    },
  );

  app.get<{ Querystring: { record: RecordBasis } }>(
    '/v1/performance',
    {
      onRequest: requireKey(ctx, 'key'),
      schema: {
        operationId: 'getPerformance',
        tags,
        security: signalsKeySecurity,
        summary:
          'The performance of the published regimes over the whole history (or, with `record=live`, over the days resting on regimes logged live): the regime strategy against buy-and-hold SPY, overall and by regime',
        querystring: performanceQuery,
        response: { 200: performanceSchema, ...errorResponses(401, 403, 422, 429, 503) },
      },
    },
    async (req) => {
      await ctx.data.assertServable();
      const reports = await latestReports(ctx.sql);
      if (!reports) throw new TradesealError('pipeline_lag', 'no performance report is published yet');
      return performanceOn(ctx.sql, reports.performance, req.query.record, { history: ctx.history, records });
    },
  );
}
