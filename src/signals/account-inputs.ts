/**
 * What a customer sends to register, verify and rotate, and what an operator types to issue keys and change
 * tiers, as JSON Schemas: the `/v1/auth/*` routes validate their bodies with these, and the
 * `tradeseal signals keys …` commands validate their flags with the same ones through the same validator
 * (src/core/validation.ts `validatePart`), so both accept exactly the same e-mail addresses, tiers and counts.
 */
import { TIERS } from './tiers.js';

/**
 * An e-mail address: ajv-formats' `email` (the dot-atom of RFC 5322 §3.4.1, a domain with at least one dot;
 * ASCII only, so no CR or LF can reach a mail header), at most 254 characters (RFC 5321 §4.5.3.1.3's 256 of a
 * path, less its angle brackets) and a local part of at most 64 (§4.5.3.1.1).
 */
export const email = {
  type: 'string',
  format: 'email',
  maxLength: 254,
  pattern: '^[^@]{1,64}@',
  description: 'An e-mail address (at most 254 characters); compared without regard to case',
} as const;

/** The code of the verification mail: 6 digits, leading zeros included. */
export const verificationCode = { type: 'string', pattern: '^[0-9]{6}$', description: 'The 6 digits of the verification mail' } as const;

export const tier = { type: 'string', enum: [...TIERS] } as const;

/** Agents an account runs (the audit decomposition needs at least 3). */
export const agentCount = { type: 'integer', minimum: 0, maximum: 1_000_000 } as const;

export const keyId = { type: 'string', format: 'uuid' } as const;

export const registerBody = {
  type: 'object',
  additionalProperties: false,
  required: ['email'],
  properties: { email },
} as const;

export const verifyBody = {
  type: 'object',
  additionalProperties: false,
  required: ['email', 'code'],
  properties: { email, code: verificationCode },
} as const;

/** `tradeseal signals keys issue`: the account (created when it does not exist) and its tier. */
export const issueKeyInput = {
  type: 'object',
  additionalProperties: false,
  required: ['email', 'tier'],
  properties: { email, tier, agent_count: agentCount },
} as const;

/** `tradeseal signals keys set-tier`: the account, named by one of its keys or its e-mail, and its new tier. */
export const setTierInput = {
  type: 'object',
  additionalProperties: false,
  required: ['tier'],
  properties: { key_id: keyId, email, tier, agent_count: agentCount },
} as const;

export const keyParams = { type: 'object', additionalProperties: false, required: ['key_id'], properties: { key_id: keyId } } as const;

export interface RegisterInput {
  email: string;
}

export interface VerifyInput {
  email: string;
  code: string;
}

export interface IssueKeyInput {
  email: string;
  tier: (typeof TIERS)[number];
  agent_count?: number;
}

export interface SetTierInput {
  key_id?: string;
  email?: string;
  tier: (typeof TIERS)[number];
  agent_count?: number;
}

/** `GET /v1/admin/keys`, `tradeseal signals keys list`: all keys, or one account's. */
export const listKeysQuery = { type: 'object', additionalProperties: false, properties: { email } } as const;

/** `GET /v1/admin/outbox`, `tradeseal signals outbox`: the newest `limit` messages, to one address when given. */
export const outboxQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { limit: { type: 'integer', minimum: 1, maximum: 10_000, default: 20 }, to: email },
} as const;
