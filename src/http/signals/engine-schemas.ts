/** Response schemas of the engine tier routes: the heartbeat and the audit decomposition (docs/signals.md,
 * "Heartbeats and the audit decomposition"). */
import { probabilities, regimeName } from './schemas.js';

export const heartbeatSchema = {
  type: 'object',
  description: 'A signed heartbeat of the regime broadcast in force',
  required: ['sequence_id', 'timestamp_ms', 'regime_id', 'mta_ref', 'signature'],
  properties: {
    sequence_id: {
      type: 'integer',
      minimum: 1,
      description: 'From one Postgres sequence: strictly greater than every heartbeat issued before, by any instance',
    },
    timestamp_ms: { type: 'integer', description: "Unix ms of the issuing server's clock" },
    regime_id: { type: 'integer', minimum: 0, maximum: 3, description: 'The broadcast in force: expansion 0, recovery 1, tightening 2, risk_off 3' },
    mta_ref: { type: 'string', pattern: '^[0-9a-f]{64}$', description: "Hex SHA-256 of the broadcast in force (the engine's `GET /engine/regime` hash)" },
    signature: {
      type: 'string',
      description: '`ed25519:<base64>` (binary layout) or `ed25519-jcs:<base64>` (JCS of the four fields), per HEARTBEAT_SIGNATURE_SCHEME',
    },
  },
} as const;

const nullableNumber = { type: ['number', 'null'] } as const;

export const auditSchema = {
  type: 'object',
  description: 'The audit decomposition of the newest published day',
  required: [
    'generated_at',
    'date',
    'regime',
    'risk_score',
    'agent_count',
    'factor_attribution',
    'stress_indicators',
    'liquidity',
    'transition_risk',
    'model_health',
  ],
  properties: {
    generated_at: { type: 'string', format: 'date-time' },
    date: { type: 'string', format: 'date', description: 'The newest published trading day, which the decomposition explains' },
    regime: regimeName,
    risk_score: { type: 'number' },
    agent_count: { type: 'integer', description: "Agents of the key's account" },
    factor_attribution: {
      type: 'array',
      minItems: 4,
      maxItems: 4,
      items: {
        type: 'object',
        required: ['factor', 'description', 'value', 'direction'],
        properties: {
          factor: { type: 'string', enum: ['PC1', 'PC2', 'PC3', 'PC4'] },
          description: { type: 'string', description: 'The share of variance the factor keeps and the three inputs that load most on it' },
          value: { type: 'number', description: 'The factor score published for the day' },
          direction: { type: 'string', enum: ['bullish', 'neutral', 'bearish'] },
        },
      },
    },
    stress_indicators: {
      type: 'array',
      minItems: 5,
      maxItems: 5,
      items: {
        type: 'object',
        required: ['name', 'value', 'z_score', 'flag'],
        properties: {
          name: { type: 'string', enum: ['volatility_index', 'high_yield_spread', 'curve_10y_2y', 'dollar_index', 'net_liquidity'] },
          value: nullableNumber,
          z_score: { ...nullableNumber, description: 'Against the trailing 90 published days, the day included' },
          flag: { type: 'string', enum: ['normal', 'elevated', 'extreme', 'unavailable'] },
        },
      },
    },
    liquidity: {
      type: 'object',
      required: ['trend', 'latest_bn_usd', '30d_change_bn_usd'],
      properties: {
        trend: { type: 'string', enum: ['expanding', 'contracting', 'flat'] },
        latest_bn_usd: { type: 'number' },
        '30d_change_bn_usd': nullableNumber,
      },
    },
    transition_risk: { ...probabilities, description: "The fitted HMM's probabilities of moving from the day's regime to each regime on the next day" },
    model_health: {
      type: 'object',
      required: ['status', 'flags', 'pca_explained_variance', 'regime_persistence', 'feature_mean_shift'],
      properties: {
        status: { type: 'string', enum: ['ok', 'degraded'] },
        flags: { type: 'array', items: { type: 'string', enum: ['low_explained_variance', 'low_regime_persistence', 'feature_mean_shift'] } },
        pca_explained_variance: { type: 'number', description: "Percent of the standardized inputs' variance the four factors keep" },
        regime_persistence: { type: 'number', description: "Mean of the transition matrix's diagonal" },
        feature_mean_shift: { ...nullableNumber, description: 'Largest |20-day mean − fit mean| / fit standard deviation over the published PCA inputs' },
      },
    },
  },
} as const;
