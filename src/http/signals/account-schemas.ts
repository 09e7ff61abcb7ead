/** JSON Schemas of the answers of registration, rotation and the account (they serialize the responses and document them). */
import { TIERS } from '../../signals/tiers.js';

const tier = { type: 'string', enum: [...TIERS] } as const;
const apiKey = { type: 'string', pattern: '^rsk_[A-Za-z0-9_-]{43}$', description: 'The API key: shown once, only its SHA-256 is kept' } as const;

export const registeredBody = {
  type: 'object',
  required: ['status', 'email'],
  properties: {
    status: { type: 'string', enum: ['verification_sent'] },
    email: { type: 'string', description: 'The address the mail went to, in lower case' },
  },
} as const;

export const verifiedBody = {
  type: 'object',
  required: ['api_key', 'email', 'tier', 'daily_limit'],
  properties: {
    api_key: apiKey,
    email: { type: 'string' },
    tier: { type: 'string', enum: ['free'] },
    daily_limit: { type: 'integer', description: 'Requests per rolling 24 hours' },
  },
} as const;

export const rotatedBody = {
  type: 'object',
  required: ['api_key', 'key_prefix', 'tier', 'rotated_at'],
  properties: {
    api_key: apiKey,
    key_prefix: { type: 'string', description: 'The first characters of the new key, as `tradeseal signals keys list` shows them' },
    tier,
    rotated_at: { type: 'string', format: 'date-time', description: 'When the presented key was revoked' },
  },
} as const;

export const accountBody = {
  type: 'object',
  required: ['email', 'tier', 'tier_label', 'product', 'product_line', 'agent_count', 'payment_status', 'features', 'usage', 'billing_portal_url', 'docs_url'],
  properties: {
    email: { type: 'string' },
    tier,
    tier_label: { type: 'string' },
    product: { type: 'string' },
    product_line: { type: 'string', enum: ['signals', 'engine', 'operator'] },
    agent_count: { type: 'integer', minimum: 0 },
    payment_status: { type: 'string' },
    features: {
      type: 'array',
      items: { type: 'string' },
      description: 'What the tier may call: signals, history, liquidity, scorecard, performance, export, forecast, backtest, webhook, heartbeat, audit',
    },
    usage: {
      type: 'object',
      required: ['today_requests', 'daily_limit'],
      properties: {
        today_requests: { type: 'integer', minimum: 0, description: "Requests of all the account's keys since 00:00 UTC, this one included" },
        daily_limit: { type: ['integer', 'null'], description: 'Requests per rolling 24 hours; null: no limit (pro, engine tiers, owner)' },
      },
    },
    billing_portal_url: { type: 'string', format: 'uri' },
    docs_url: { type: 'string', format: 'uri' },
  },
} as const;
