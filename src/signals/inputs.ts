/**
 * What a reader may ask the regime signal service for, as JSON Schemas: the `/v1` routes validate their query
 * strings and bodies with these, and the `tradeseal signals …` commands validate their flags with the same
 * ones through the same validator (src/core/validation.ts `validatePart`), so both accept exactly the same
 * values. Rules across fields (a range that ends before it starts) live in ./ops/, which both call. Limits
 * that depend on the caller's tier (history, export rows) are the routes'; the CLI acts as the owner.
 */
import { FORECAST_HORIZON } from '../../pipeline/reports/forecast.js';
import { EXPORT_DEFAULT_LIMIT } from '../../pipeline/reports/export.js';

/** A calendar date `YYYY-MM-DD` (Postgres has no year 0000, which the `date` format admits). */
export const calendarDate = { type: 'string', format: 'date', pattern: '^(?!0000)' } as const;

/** The interface's forecast horizon: 1 to 10 business days, default 5. */
export const forecastQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { horizon: { type: 'integer', minimum: 1, maximum: FORECAST_HORIZON, default: 5 } },
} as const;

/** A backtest between two dates, both inclusive. */
export const backtestBody = {
  type: 'object',
  additionalProperties: false,
  required: ['start', 'end'],
  properties: { start: calendarDate, end: calendarDate },
} as const;

/** An optional window of the published history, both bounds inclusive. */
export const dateRangeQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { start: calendarDate, end: calendarDate },
} as const;

/** Rows of the CSV export: newest first, default 730 (a tier may cap it further). */
export const exportQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { limit: { type: 'integer', minimum: 1, maximum: 1_000_000, default: EXPORT_DEFAULT_LIMIT } },
} as const;

/** A published day: `GET /v1/signals/{date}`. */
export const signalDateParams = {
  type: 'object',
  required: ['date'],
  properties: { date: calendarDate },
} as const;

/** The most days `GET /v1/signals/range` spans, calendar days, both ends included. */
export const RANGE_MAX_DAYS = 365;

/** `GET /v1/signals/range`: both bounds required and inclusive; at most RANGE_MAX_DAYS calendar days. */
export const signalRangeQuery = {
  type: 'object',
  additionalProperties: false,
  required: ['start', 'end'],
  properties: { start: calendarDate, end: calendarDate },
} as const;

/** `GET /v1/signals/history`: the last `days` published days (clamped to the tier's history). */
export const signalHistoryQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { days: { type: 'integer', minimum: 1, maximum: 365, default: 90 } },
} as const;

/** `GET /v1/regime/history` (public): newest first. */
export const regimeHistoryQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { limit: { type: 'integer', minimum: 1, maximum: 1000, default: 90 }, start: calendarDate, end: calendarDate },
} as const;

/** `GET /v1/liquidity` (public): newest first. */
export const liquidityQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { limit: { type: 'integer', minimum: 1, maximum: 500, default: 30 } },
} as const;

/** `GET /v1/admin/pipeline-runs`, `tradeseal pipeline status`: the newest `limit` runs. */
export const pipelineRunsQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { limit: { type: 'integer', minimum: 1, maximum: 1000, default: 10 } },
} as const;

/** `GET /v1/log/head`, `GET /v1/log/days`: a head signed at a past size. */
export const trackHeadQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    tree_size: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'The size of a head signed earlier (default: the newest)' },
  },
} as const;

/** `GET /v1/log/proof`: a day's leaves and their inclusion proofs. */
export const trackProofQuery = {
  type: 'object',
  additionalProperties: false,
  required: ['date'],
  properties: {
    date: calendarDate,
    tree_size: {
      type: 'integer',
      minimum: 1,
      maximum: Number.MAX_SAFE_INTEGER,
      description: "Prove inclusion in the tree of this signed head's size (default: the newest)",
    },
  },
} as const;

/** `GET /v1/log/consistency`: the older tree a prefix of the newer. */
export const trackConsistencyQuery = {
  type: 'object',
  additionalProperties: false,
  required: ['from'],
  properties: {
    from: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'The size of the older head (a head you saved)' },
    to: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'The size of the newer head (default: the newest)' },
  },
} as const;

/** The bases a performance figure may rest on: every published day, or the days resting on regimes logged live. */
export const RECORD_BASES = ['all', 'live'] as const;
export type RecordBasis = (typeof RECORD_BASES)[number];

/** `GET /v1/performance`: over every published day, or over the days resting on regimes logged live. */
export const performanceQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    record: {
      type: 'string',
      enum: [...RECORD_BASES],
      default: 'all',
      description: '`live`: only the days whose regimes were logged live in the track log (`all`: every published day)',
    },
  },
} as const;
