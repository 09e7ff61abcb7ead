/**
 * Operator input: instants for --from/--to, MODEL_ID:SHA256HEX, numbers, and flags checked with the routes'
 * schemas (field paths named as flags).
 */
import { describe, expect, it } from 'vitest';
import { agentRegistration, asFlagErrors, checkRequest, flagOf, modelApproval, numberOf, parseModelSpec } from '../../src/cli/engine-input.js';
import { issueTokenBody, manualBroadcastBody, pendingQuery } from '../../src/engine/inputs.js';
import { parseInstant } from '../../src/cli/instant.js';
import type { FieldError } from '../../src/core/errors.js';

const HEX = 'ab'.repeat(32);

describe('parseInstant', () => {
  it.each([
    ['2026-03-01T09:30:00Z', Date.UTC(2026, 2, 1, 9, 30)],
    ['2026-03-01T09:30Z', Date.UTC(2026, 2, 1, 9, 30)],
    ['2026-03-01T09:30:00.123+01:00', Date.UTC(2026, 2, 1, 8, 30, 0, 123)],
    ['2026-03-01', Date.UTC(2026, 2, 1)],
    ['2024-02-29', Date.UTC(2024, 1, 29)],
    ['1772357400000', 1_772_357_400_000],
    ['0', 0],
    [' 2026-03-01 ', Date.UTC(2026, 2, 1)],
  ])('%s', (text, ms) => {
    expect(parseInstant(text).getTime()).toBe(ms);
  });

  it.each([
    ['2026-03-01T09:30:00', 'no zone: local time is ambiguous'],
    ['2026-02-30', 'not a calendar date'],
    ['2025-02-29', 'not a leap year'],
    ['2026-03-01T25:00:00Z', 'no such hour'],
    ['-5', 'negative'],
    ['99999999999999999', 'beyond a Date'],
    ['yesterday', 'words'],
    ['', 'empty'],
  ])('refuses %s (%s) with exit 2', (text) => {
    expect(() => parseInstant(text)).toThrow(expect.objectContaining({ oclif: { exit: 2 }, message: expect.stringContaining('not an instant') }));
  });
});

describe('parseModelSpec', () => {
  it.each([
    [`alpha-7:${HEX}`, { model_id: 'alpha-7', model_hash_hex: HEX }],
    [`alpha-7:${HEX.toUpperCase()}`, { model_id: 'alpha-7', model_hash_hex: HEX }],
    [`org:team:m1:${HEX}`, { model_id: 'org:team:m1', model_hash_hex: HEX }],
    // What the parts must be is the schema's to say (modelApproval), not the parser's.
    [`:${HEX}`, { model_id: '', model_hash_hex: HEX }],
  ])('%s', (spec, model) => {
    const errors: FieldError[] = [];
    expect(parseModelSpec(spec, errors)).toEqual(model);
    expect(errors).toEqual([]);
  });

  it('refuses a spec without a colon', () => {
    const errors: FieldError[] = [];
    expect(parseModelSpec('alpha-7', errors)).toBeNull();
    expect(errors).toEqual([{ field: '--model', message: '"alpha-7" is not MODEL_ID:SHA256HEX' }]);
  });
});

describe('modelApproval', () => {
  it.each([
    [`:${HEX}`, 'must NOT have fewer than 1 characters'],
    [`alpha-7:${HEX.slice(2)}`, 'must match pattern "^[0-9a-f]{64}$"'],
    [`alpha-7:${'g'.repeat(64)}`, 'must match pattern "^[0-9a-f]{64}$"'],
    [`${'m'.repeat(257)}:${HEX}`, 'must NOT have more than 256 characters'],
  ])("refuses %s with the API's message, on --model", (spec, message) => {
    const errors: FieldError[] = [];
    expect(modelApproval(spec, errors)).toBeNull();
    expect(errors).toEqual([{ field: '--model', message }]);
  });
});

describe('flag names', () => {
  it('names a field path by its top-level field: a given name, else -- and kebab case', () => {
    const names = { agent_ids: '--agent-id', agent_id: 'AGENT_ID' };
    expect(flagOf('client_name', names)).toBe('--client-name');
    expect(flagOf('agent_ids[1]', names)).toBe('--agent-id');
    expect(flagOf('agent_ids', names)).toBe('--agent-id');
    expect(flagOf('models[0].model_hash_hex', { models: '--model' })).toBe('--model');
    expect(flagOf('agent_id', names)).toBe('AGENT_ID');
  });

  it('keeps every message, once per flag', () => {
    expect(
      asFlagErrors(
        [
          { field: 'agent_ids[0]', message: 'must be a valid uuid' },
          { field: 'agent_ids[2]', message: 'must be a valid uuid' },
          { field: 'agent_ids[3]', message: 'no agent x is registered' },
          { field: 'ttl_days', message: 'must be > 0' },
        ],
        { agent_ids: '--agent-id' },
      ),
    ).toEqual([
      { field: '--agent-id', message: 'must be a valid uuid' },
      { field: '--agent-id', message: 'no agent x is registered' },
      { field: '--ttl-days', message: 'must be > 0' },
    ]);
  });

  it("validates with the route's schema: every bad flag at once, in the API's words", () => {
    expect(() =>
      checkRequest(issueTokenBody, { client_name: 'x'.repeat(201), role: 'admin', agent_ids: ['bot-1'], ttl_days: 'soon' }, 'body', {
        agent_ids: '--agent-id',
      }),
    ).toThrow(
      expect.objectContaining({
        code: 'validation_failed',
        exit: 2,
        message: '4 invalid fields: --client-name, --role, --agent-id, --ttl-days',
        errors: [
          { field: '--client-name', message: 'must NOT have more than 200 characters' },
          { field: '--role', message: 'must be one of "client", "owner", "auditor"' },
          { field: '--agent-id', message: 'must be a valid uuid' },
          { field: '--ttl-days', message: 'must be number' },
        ],
      }),
    );
  });

  it("fills in the schema's defaults and coerces query text as the HTTP layer does", () => {
    expect(checkRequest(issueTokenBody, { client_name: 'desk' }, 'body')).toEqual({ client_name: 'desk', role: 'client' });
    expect(checkRequest(pendingQuery, { limit: '20' }, 'querystring')).toEqual({ age_seconds: 3600, limit: 20 });
  });
});

describe('numberOf', () => {
  it.each([
    ['1000', 1000],
    ['2.5e5', 250_000],
    ['0.5', 0.5],
    ['-5', -5],
    ['.5', 0.5],
    [' 7 ', 7],
  ])('%s is %d', (text, n) => {
    expect(numberOf(text)).toBe(n);
  });

  it.each(['', ' ', 'Infinity', 'NaN', '0x10', '1e400', 'lots', '1,000'])('%j stays text, for the schema to refuse', (text) => {
    expect(numberOf(text)).toBe(text);
  });
});

describe('agentRegistration', () => {
  it('builds the body of POST /engine/admin/agents', () => {
    expect(agentRegistration({ name: 'm1', 'max-notional': '2.5e5', model: [`a:${HEX}`], 'allowed-regime': ['expansion', 'risk_off'] })).toEqual({
      name: 'm1',
      max_notional: 250_000,
      models: [{ model_id: 'a', model_hash_hex: HEX }],
      allowed_regimes: ['expansion', 'risk_off'],
    });
    expect(agentRegistration({ name: 'm1', 'max-notional': '1' })).toEqual({ name: 'm1', max_notional: 1, models: [] });
  });

  it('lists every bad flag at once', () => {
    expect(() => agentRegistration({ name: '', 'max-notional': 'Infinity', model: ['x', `y:${HEX}`], 'allowed-regime': ['expansion', 'expansion'] })).toThrow(
      expect.objectContaining({
        code: 'validation_failed',
        exit: 2,
        errors: [
          { field: '--name', message: 'must NOT have fewer than 1 characters' },
          { field: '--max-notional', message: 'must be number' },
          { field: '--allowed-regime', message: 'must NOT have duplicate items (items ## 0 and 1 are identical)' },
          { field: '--model', message: '"x" is not MODEL_ID:SHA256HEX' },
        ],
      }),
    );
  });
});

describe("the manual broadcast flags, checked with the route's schema", () => {
  const flags = { regime: 'tightening', risk_score: numberOf('0.6'), reason: 'rates', model_version: 'manual' };
  it('accepts what POST /engine/admin/regime accepts', () => {
    expect(checkRequest(manualBroadcastBody, { ...flags, date: '2026-03-06' }, 'body')).toEqual({ ...flags, date: '2026-03-06' });
  });

  it.each([
    [{ risk_score: numberOf('1.01') }, '--risk-score'],
    [{ risk_score: numberOf('') }, '--risk-score'],
    [{ reason: '   ' }, '--reason'],
    [{ date: '2026-13-01' }, '--date'],
    [{ date: '6 March' }, '--date'],
    [{ model_version: 'x'.repeat(101) }, '--model-version'],
    [{ regime: 'panic' }, '--regime'],
  ])('refuses %o', (bad, field) => {
    expect(() => checkRequest(manualBroadcastBody, { ...flags, ...bad }, 'body')).toThrow(
      expect.objectContaining({ errors: [expect.objectContaining({ field })] }),
    );
  });
});
