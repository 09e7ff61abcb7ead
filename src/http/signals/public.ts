/**
 * The public routes of the regime signal service (no key): the current regime, its public view, the regime
 * history, net liquidity, the scorecard and the chart data. 503 `pipeline_lag` while there is nothing to serve.
 */
import type { FastifyInstance } from 'fastify';
import { notFound, TradesealError } from '../../core/errors.js';
import { publicBaseUrl } from '../../core/public-base-url.js';
import type { SignalsContext } from '../../signals/context.js';
import { currentRegime } from '../../store/regime-broadcasts.js';
import { liquidityQuery, performanceQuery, regimeHistoryQuery, type RecordBasis } from '../../signals/inputs.js';
import { chartOn, RecordCache } from '../../signals/ops/track-record.js';
import { checkDateRange } from '../../signals/ops/date-range.js';
import { compactRows, latestScorecard, liquidityRows } from '../../signals/store/published.js';
import { latestReports } from '../../signals/store/quant.js';
import { exposurePercent, REGIME_EMOJI, REGIME_INTERPRETATION, REGIME_LABEL, volatilityState } from '../../signals/views.js';
import { availableAt, liquidityRow, regimeHistoryRow } from './data-schemas.js';
import { errorResponses, probabilities, recordSchema, regimeName } from './schemas.js';

const noKey: never[] = [];
const number = { type: 'number' } as const;
const nullableNumber = { type: ['number', 'null'] } as const;

const regimeDistribution = { type: 'object', properties: { expansion: number, recovery: number, tightening: number, risk_off: number } } as const;

export function publicRoutes(app: FastifyInstance, ctx: SignalsContext): void {
  const tags = ['signals public'];
  const records = new RecordCache();

  /** The broadcast in force (the regime the engine enforces), or pipeline_lag. */
  const inForce = async () => {
    await ctx.data.assertServable();
    const b = await currentRegime(ctx.sql);
    if (!b) throw new TradesealError('pipeline_lag', 'no regime is broadcast yet');
    return b;
  };

  app.get(
    '/v1/regime/current',
    {
      schema: {
        operationId: 'getCurrentRegime',
        tags,
        security: noKey,
        summary: 'The regime in force (the broadcast the compliance engine enforces)',
        response: {
          200: {
            type: 'object',
            required: ['timestamp', 'macro_regime', 'risk_score', 'probabilities', 'volatility_state', 'model_version', 'date', 'available_at'],
            properties: {
              timestamp: { type: 'string', description: 'ISO 8601 date-time without a zone (UTC): when the broadcast was published' },
              date: { type: 'string', format: 'date', description: 'The trading day whose regime is broadcast' },
              available_at: availableAt,
              macro_regime: regimeName,
              risk_score: number,
              probabilities,
              volatility_state: { type: 'string', enum: ['low', 'normal', 'elevated'] },
              model_version: { type: 'string' },
            },
          },
          ...errorResponses(503),
        },
      },
    },
    async () => {
      const b = await inForce();
      const card = await latestScorecard(ctx.sql);
      return {
        timestamp: b.published_at.toISOString().slice(0, 19),
        macro_regime: b.regime,
        risk_score: b.risk_score,
        probabilities: b.probabilities,
        volatility_state: volatilityState(card?.financial_stress ?? null),
        model_version: b.model_version,
        date: b.date,
        available_at: b.available_at,
      };
    },
  );

  app.get(
    '/v1/public/regime',
    {
      schema: {
        operationId: 'getPublicRegime',
        tags,
        security: noKey,
        summary: 'The public view of the regime in force, with the exposure it suggests as a percent',
        response: {
          200: {
            type: 'object',
            required: ['date', 'regime', 'regime_label', 'emoji', 'risk_score', 'equity_exposure', 'interpretation', 'upgrade'],
            properties: {
              date: { type: 'string', format: 'date' },
              regime: regimeName,
              regime_label: { type: 'string' },
              emoji: { type: 'string' },
              risk_score: number,
              equity_exposure: { type: 'string', pattern: '^\\d{1,3}%$' },
              interpretation: { type: 'string' },
              upgrade: { type: 'object', required: ['message', 'url'], properties: { message: { type: 'string' }, url: { type: 'string' } } },
            },
          },
          ...errorResponses(503),
        },
      },
    },
    async () => {
      const b = await inForce();
      return {
        date: b.date,
        regime: b.regime,
        regime_label: REGIME_LABEL[b.regime],
        emoji: REGIME_EMOJI[b.regime],
        risk_score: b.risk_score,
        equity_exposure: exposurePercent(b.regime),
        interpretation: REGIME_INTERPRETATION[b.regime],
        upgrade: {
          message: 'Probabilities, the signal package, forecasts and backtests come with a key: register at POST /v1/auth/register.',
          url: `${publicBaseUrl(ctx.config)}/docs`,
        },
      };
    },
  );

  app.get<{ Querystring: { limit: number; start?: string; end?: string } }>(
    '/v1/regime/history',
    {
      schema: {
        operationId: 'getRegimeHistory',
        tags,
        security: noKey,
        summary: 'Published regimes, newest first (limit default 90, at most 1000; start and end inclusive)',
        querystring: regimeHistoryQuery,
        response: { 200: { type: 'array', items: regimeHistoryRow }, ...errorResponses(422, 503) },
      },
    },
    async (req) => {
      checkDateRange(req.query.start, req.query.end);
      await ctx.data.assertServable();
      return compactRows(ctx.sql, req.query);
    },
  );

  app.get<{ Querystring: { limit: number } }>(
    '/v1/liquidity',
    {
      schema: {
        operationId: 'getLiquidity',
        tags,
        security: noKey,
        summary: 'Net liquidity per trading day, newest first, billions of USD (limit default 30, at most 500)',
        querystring: liquidityQuery,
        response: { 200: { type: 'array', items: liquidityRow }, ...errorResponses(422, 503) },
      },
    },
    async (req) => {
      await ctx.data.assertServable();
      return liquidityRows(ctx.sql, req.query.limit);
    },
  );

  app.get(
    '/v1/scorecard',
    {
      schema: {
        operationId: 'getScorecard',
        tags,
        security: noKey,
        summary: 'The five gauges of the newest published day, each in [-1, 1]',
        response: {
          200: {
            type: 'object',
            required: ['growth_momentum', 'inflation_momentum', 'liquidity', 'financial_stress', 'dollar_strength', 'computed_at'],
            properties: {
              date: { type: 'string', format: 'date' },
              growth_momentum: number,
              inflation_momentum: number,
              liquidity: number,
              financial_stress: number,
              dollar_strength: number,
              computed_at: { type: 'string', format: 'date-time' },
            },
          },
          ...errorResponses(503),
        },
      },
    },
    async () => {
      await ctx.data.assertServable();
      const card = await latestScorecard(ctx.sql);
      if (!card) throw notFound('no scorecard is published');
      return card;
    },
  );

  app.get<{ Querystring: { record: RecordBasis } }>(
    '/v1/public/chart-data',
    {
      schema: {
        operationId: 'getChartData',
        tags,
        security: noKey,
        summary: 'The last 730 published days: SPY, gold and the regime strategy, each from 100, and their statistics',
        description:
          'equity500 (buy-and-hold SPY) and strategy trade as GET /v1/performance describes: each regime taken at the first SPY open after its publication (06:30 New York on the next NYSE trading day), marked to market at the closes, net of the cost per unit of exposure change; gold is GLD close to close, a reference line. With `record=live`, only the days resting on regimes logged live in the track log earn a return (the lines stay flat on the others); `record` says what the window rests on.',
        querystring: performanceQuery,
        response: {
          200: {
            type: 'object',
            required: ['days', 'generated_at', 'series', 'stats'],
            properties: {
              days: { type: 'integer' },
              generated_at: { type: 'string', format: 'date-time' },
              series: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['date', 'regime', 'risk_score', 'equity500', 'gold', 'strategy'],
                  properties: {
                    date: { type: 'string', format: 'date' },
                    regime: regimeName,
                    risk_score: number,
                    equity500: number,
                    gold: number,
                    strategy: number,
                  },
                },
              },
              stats: {
                type: 'object',
                properties: {
                  sharpe_proxy: nullableNumber,
                  max_drawdown: nullableNumber,
                  avg_persistence_days: number,
                  strategy_annual_return: nullableNumber,
                  bh_annual_return: nullableNumber,
                  total_days: { type: 'integer' },
                  regime_distribution: regimeDistribution,
                },
              },
              record: recordSchema,
            },
          },
          ...errorResponses(422, 503),
        },
      },
    },
    async (req) => {
      await ctx.data.assertServable();
      const reports = await latestReports(ctx.sql);
      if (!reports) throw new TradesealError('pipeline_lag', 'no chart data is published yet');
      return chartOn(ctx.sql, reports.chart_data, reports.performance.cost_bps, req.query.record, { history: ctx.history, records });
    },
  );
}
