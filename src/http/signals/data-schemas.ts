/** Response schemas of the `/v1` data routes (docs/signals.md, "Endpoints"), shared with the OpenAPI document. */
import { probabilities, regimeName } from './schemas.js';

const date = { type: 'string', format: 'date' } as const;
const confidence = { type: 'string', enum: ['HIGH', 'MODERATE', 'LOW'] } as const;
const trend = { type: 'string', enum: ['EXPANDING', 'CONTRACTING', 'FLAT'] } as const;
/** When the day's regime was published; null for days published before release-time data. */
export const availableAt = {
  type: ['string', 'null'],
  format: 'date-time',
  description:
    'When the day was published (06:30 New York on the next trading day), computed only from values released by then; its exposure can be taken from the next market open',
} as const;

export const signalPackageSchema = {
  type: 'object',
  required: ['date', 'available_at', 'regime', 'net_liquidity', 'pca_factors', 'model_metadata'],
  properties: {
    date,
    available_at: availableAt,
    regime: {
      type: 'object',
      required: ['most_likely', 'probabilities', 'confidence', 'persistence_days', 'expected_duration_remaining_days'],
      properties: {
        most_likely: regimeName,
        probabilities,
        confidence,
        persistence_days: { type: 'integer' },
        expected_duration_remaining_days: { type: 'integer' },
      },
    },
    net_liquidity: {
      type: 'object',
      required: ['level_bn', 'change_4w_bn', 'zscore', 'trend'],
      properties: { level_bn: { type: 'number' }, change_4w_bn: { type: 'number' }, zscore: { type: 'number' }, trend },
    },
    pca_factors: {
      type: 'object',
      required: ['pc1', 'pc2', 'pc3', 'pc4', 'variance_explained_pct'],
      properties: {
        pc1: { type: 'number' },
        pc2: { type: 'number' },
        pc3: { type: 'number' },
        pc4: { type: 'number' },
        variance_explained_pct: { type: 'array', items: { type: 'number' }, minItems: 4, maxItems: 4 },
      },
    },
    model_metadata: {
      type: 'object',
      required: ['pca_fit_date', 'hmm_fit_date', 'data_vintage'],
      properties: { pca_fit_date: date, hmm_fit_date: date, data_vintage: { type: 'string', format: 'date-time' } },
    },
  },
} as const;

export const compactRow = {
  type: 'object',
  required: ['date', 'regime', 'risk_score', 'prob_expansion', 'prob_recovery', 'prob_tightening', 'prob_risk_off', 'available_at'],
  properties: {
    date,
    regime: regimeName,
    risk_score: { type: 'number' },
    available_at: availableAt,
    prob_expansion: { type: 'number' },
    prob_recovery: { type: 'number' },
    prob_tightening: { type: 'number' },
    prob_risk_off: { type: 'number' },
  },
} as const;

/** A regime-history row: the compact row plus `confidence` (docs/decisions/0024-open-shapes.md). */
export const regimeHistoryRow = {
  ...compactRow,
  required: [...compactRow.required, 'confidence'],
  properties: { ...compactRow.properties, confidence },
} as const;

export const liquidityRow = {
  type: 'object',
  required: ['date', 'fed_assets_bn', 'rrp_bn', 'tga_bn', 'level_bn', 'change_4w_bn', 'zscore', 'trend'],
  properties: {
    date,
    fed_assets_bn: { type: 'number' },
    rrp_bn: { type: 'number' },
    tga_bn: { type: 'number' },
    level_bn: { type: 'number' },
    change_4w_bn: { type: 'number' },
    zscore: { type: 'number' },
    trend,
  },
} as const;
