/** The pure parsing of operator input: instants for --from/--to, MODEL_ID:SHA256HEX, agent registrations. */
import { describe, expect, it } from 'vitest';
import { agentRegistration, manualBroadcast, parseModelSpec } from '../../src/cli/engine-input.js';
import { parseInstant } from '../../src/cli/instant.js';
import type { FieldError } from '../../src/errors.js';

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
  ])('%s', (spec, model) => {
    const errors: FieldError[] = [];
    expect(parseModelSpec(spec, errors)).toEqual(model);
    expect(errors).toEqual([]);
  });

  it.each([
    ['alpha-7', /is not MODEL_ID:SHA256HEX/],
    [`:${HEX}`, /model_id .* must be 1-256 characters, got 0/],
    [`alpha-7:${HEX.slice(2)}`, /model_hash_hex .* must be 64 hex characters .* got 62 characters$/],
    [`alpha-7:${'g'.repeat(64)}`, /got 64 characters that are not all hex/],
  ])('refuses %s', (spec, message) => {
    const errors: FieldError[] = [];
    expect(parseModelSpec(spec, errors)).toBeNull();
    expect(errors).toEqual([{ field: '--model', message: expect.stringMatching(message) }]);
  });
});

describe('agentRegistration', () => {
  it('builds the registration, deduplicating regimes', () => {
    expect(agentRegistration({ name: ' m1 ', 'max-notional': '2.5e5', model: [`a:${HEX}`], 'allowed-regime': ['expansion', 'expansion', 'risk_off'] }))
      .toEqual({ name: 'm1', max_notional: 250_000, models: [{ model_id: 'a', model_hash_hex: HEX }], allowed_regimes: ['expansion', 'risk_off'] });
    expect(agentRegistration({ name: 'm1', 'max-notional': '1', model: [`a:${HEX}`] }).allowed_regimes).toBeNull();
  });

  it('lists every bad flag at once', () => {
    expect(() => agentRegistration({ name: '', 'max-notional': 'Infinity', model: ['x', `y:${HEX}`] })).toThrow(expect.objectContaining({
      code: 'validation_failed', exit: 2,
      errors: [expect.objectContaining({ field: '--name' }), expect.objectContaining({ field: '--max-notional' }), expect.objectContaining({ field: '--model' })],
    }));
  });
});

describe('manualBroadcast', () => {
  const flags = { regime: 'tightening' as const, 'risk-score': '0.6', reason: ' rates ', 'model-version': 'manual' };
  it('defaults the date to today and states the actor', () => {
    expect(manualBroadcast(flags, '2026-03-06', 'cli:ops')).toEqual({
      date: '2026-03-06', regime: 'tightening', risk_score: 0.6, model_version: 'manual', source: 'manual', reason: 'rates', published_by: 'cli:ops',
    });
  });

  it.each([
    [{ 'risk-score': '1.01' }, '--risk-score'],
    [{ 'risk-score': '' }, '--risk-score'],
    [{ reason: '   ' }, '--reason'],
    [{ date: '2026-13-01' }, '--date'],
    [{ date: '6 March' }, '--date'],
    [{ 'model-version': 'x'.repeat(101) }, '--model-version'],
  ])('refuses %o', (bad, field) => {
    expect(() => manualBroadcast({ ...flags, ...bad }, '2026-03-06', 'cli:ops')).toThrow(expect.objectContaining({ errors: [expect.objectContaining({ field })] }));
  });
});
