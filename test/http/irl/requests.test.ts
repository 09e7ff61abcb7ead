/** IRL clients' requests in tradeseal's form (src/http/irl/authorize-input.ts, src/http/irl/requests.ts): pure. */
import { describe, expect, it } from 'vitest';
import { isTradesealError } from '../../../src/core/errors.js';
import { authorizeBodyFromIrl } from '../../../src/http/irl/authorize-input.js';
import { auditQueryFromIrl, bindBodyFromIrl, pendingQueryFromIrl, registerBodyFromIrl, shadowBodyFromIrl } from '../../../src/http/irl/requests.js';

const refusal = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    if (isTradesealError(e)) return { code: e.code, errors: e.errors };
    throw e;
  }
  throw new Error('not refused');
};

describe('authorize', () => {
  it.each([
    ['MARKET', 'Market'],
    ['LIMIT', 'Limit'],
    ['STOP', 'Stop'],
    ['STOP_LIMIT', 'StopLimit'],
    ['TWAP', 'Twap'],
    ['VWAP', 'Vwap'],
    ['market', 'Market'],
    ['stop_limit', 'StopLimit'],
    ['StopLimit', 'StopLimit'],
    ['Vwap', 'Vwap'],
  ])('order_type %s is %s', (irl, canonical) => {
    expect(authorizeBodyFromIrl({ order_type: irl })).toEqual({ order_type: canonical });
  });

  it.each(['IOC', 'FOK', 'POST_ONLY', 'PEGGED', 'TRAILING_STOP', 'ICEBERG', ''])('order_type %j is a 422 naming the supported values', (t) => {
    expect(refusal(() => authorizeBodyFromIrl({ order_type: t }))).toEqual({
      code: 'validation_failed',
      errors: [{ field: 'order_type', message: `${JSON.stringify(t)} has no equivalent in tradeseal; supported: MARKET, LIMIT, STOP, STOP_LIMIT, TWAP, VWAP` }],
    });
  });

  it('reads {"Long": n} and {"Short": n} as the side (the quantity is `quantity`), refuses {"Custom": …}', () => {
    expect(authorizeBodyFromIrl({ action: { Long: 0.37 }, quantity: 2 })).toEqual({ action: 'Long', quantity: 2 });
    expect(authorizeBodyFromIrl({ action: { Short: 5 } })).toEqual({ action: 'Short' });
    expect(authorizeBodyFromIrl({ action: 'Neutral' })).toEqual({ action: 'Neutral' });
    expect(refusal(() => authorizeBodyFromIrl({ action: { Custom: 'Buy' } })).errors?.[0]?.field).toBe('action');
  });

  it('turns a 64-byte signature array into base64, drops an empty mta_ref, lowers the model hash', () => {
    const bytes = Array.from({ length: 64 }, (_, i) => (i * 7) % 256);
    expect(authorizeBodyFromIrl({ model_hash_hex: 'AB'.repeat(32), heartbeat: { sequence_id: 1, mta_ref: '', signature: bytes } })).toEqual({
      model_hash_hex: 'ab'.repeat(32),
      heartbeat: { sequence_id: 1, signature: Buffer.from(bytes).toString('base64') },
    });
    // Not a signature's bytes: left for the schema to refuse.
    expect(authorizeBodyFromIrl({ heartbeat: { signature: [1, 2, 300] } })).toEqual({ heartbeat: { signature: [1, 2, 300] } });
  });
});

describe('bind, registration, shadow mode, audit log, pending', () => {
  it('bind: execution_time is execution_time_ms (which wins), sides and statuses in any case', () => {
    expect(bindBodyFromIrl({ execution_time: 5, executed_side: 'SHORT', execution_status: 'filled' })).toEqual({
      execution_time_ms: 5,
      executed_side: 'Short',
      execution_status: 'Filled',
    });
    expect(bindBodyFromIrl({ execution_time: 5, execution_time_ms: 6 })).toEqual({ execution_time_ms: 6 });
  });

  it('registration: the IRL body becomes one model "default" with the IRL defaults', () => {
    expect(registerBodyFromIrl({ name: 'bot', model_hash_hex: 'A'.repeat(64), allowed_regimes: null, max_leverage: null })).toEqual({
      name: 'bot',
      max_notional: 1_000_000,
      models: [{ model_id: 'default', model_hash_hex: 'a'.repeat(64) }],
    });
    expect(registerBodyFromIrl({ name: 'bot', model_hash_hex: 'a'.repeat(64), allowed_venues: ['X'] })).toMatchObject({ allowed_venues: ['X'] });
    const own = { name: 'bot', max_notional: 5, models: [{ model_id: 'm', model_hash_hex: 'a'.repeat(64) }] };
    expect(registerBodyFromIrl(own)).toEqual(own);
  });

  it('shadow mode: on without a reason records the fixed one; off, or with a reason, is unchanged', () => {
    expect(shadowBodyFromIrl({ enabled: true })).toEqual({ enabled: true, reason: 'enabled through the IRL-compatible API' });
    expect(shadowBodyFromIrl({ enabled: true, reason: '' })).toEqual({ enabled: true, reason: 'enabled through the IRL-compatible API' });
    expect(shadowBodyFromIrl({ enabled: true, reason: 'dry run' })).toEqual({ enabled: true, reason: 'dry run' });
    expect(shadowBodyFromIrl({ enabled: false })).toEqual({ enabled: false });
  });

  it('audit log: cursor, IRL action names, a clamped limit', () => {
    expect(auditQueryFromIrl({ cursor: 'c', action: 'AGENT_SUSPEND', limit: '0' })).toEqual({ before_id: 'c', action: 'agent.status', limit: '1' });
    expect(auditQueryFromIrl({ cursor: 'c', before_id: 'b', action: 'GDPR_ERASURE', limit: '9999' })).toEqual({
      before_id: 'b',
      action: 'gdpr.erase',
      limit: '500',
    });
    expect(auditQueryFromIrl({ action: 'token.issue', limit: 'x' })).toEqual({ action: 'token.issue', limit: 'x' });
    expect(refusal(() => auditQueryFromIrl({ action: 'SHADOW_MODE_CHANGE' })).errors?.[0]?.field).toBe('action');
  });

  it('pending: no age_seconds is 0', () => {
    expect(pendingQueryFromIrl({})).toEqual({ age_seconds: '0' });
    expect(pendingQueryFromIrl({ age_seconds: '60' })).toEqual({ age_seconds: '60' });
  });
});
