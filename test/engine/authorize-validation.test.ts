/**
 * What authorize refuses before any rule runs: 422 `validation_failed` listing every invalid field
 * (docs/decisions/0001-error-body.md), the tagged action form, malformed JSON, oversize bodies and
 * authentication (401 without a live token, 403 for an auditor).
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineHarness, type EngineHarness } from '../helpers/engine.js';

let h: EngineHarness;
let agentId: string;
let token: string;
beforeAll(async () => {
  h = await engineHarness();
  await h.publishRegime('expansion');
  ({ agent_id: agentId, token } = await h.registerAgent());
});
afterAll(async () => h?.close());

const authorize = (body: unknown, tok: string | null = token) => h.call('POST', '/engine/authorize', body, tok);

/** Asserts a 422 validation_failed and returns the invalid field names it lists, sorted. */
function invalidFields(res: LightMyRequestResponse): string[] {
  expect(res.statusCode, res.body).toBe(422);
  const body = res.json();
  expect(body.code).toBe('validation_failed');
  expect(typeof body.detail).toBe('string');
  expect(Array.isArray(body.errors)).toBe(true);
  for (const e of body.errors) {
    expect(typeof e.field).toBe('string');
    expect(typeof e.message).toBe('string');
  }
  return (body.errors as Array<{ field: string }>).map((e) => e.field).sort();
}

function errorFor(res: LightMyRequestResponse, field: string): string {
  const e = (res.json().errors as Array<{ field: string; message: string }>).find((x) => x.field === field);
  expect(e, `no error for ${field} in ${res.body}`).toBeDefined();
  return e!.message;
}

const traceCount = async (): Promise<number> => (await h.call('GET', `/engine/traces?agent_id=${agentId}&limit=5000`)).json().count;

describe('validation_failed: field by field', () => {
  it('validation_failed: a bad uuid agent_id', async () => {
    const res = await authorize(h.order('not-a-uuid'));
    expect(invalidFields(res)).toEqual(['agent_id']);
    expect(errorFor(res, 'agent_id')).toBe('must be a valid uuid');
  });

  it('validation_failed: enums (action, order_type) list their allowed values', async () => {
    const res = await authorize(h.order(agentId, { action: 'Buy', order_type: 'Iceberg' }));
    expect(invalidFields(res)).toEqual(['action', 'order_type']);
    expect(errorFor(res, 'order_type')).toBe('must be one of "Market", "Limit", "Stop", "StopLimit", "Twap", "Vwap"');
  });

  it('validation_failed: zero and negative quantity, notional, prices and multiplier', async () => {
    const res = await authorize(h.order(agentId, { quantity: 0, notional: -1, limit_price: 0, multiplier: -2 }));
    expect(invalidFields(res)).toEqual(['limit_price', 'multiplier', 'notional', 'quantity']);
    expect(errorFor(res, 'quantity')).toBe('must be > 0');
  });

  it('validation_failed: strings for numbers are not coerced ("100", "NaN", "Infinity")', async () => {
    const res = await authorize(h.order(agentId, { quantity: '100', notional: 'NaN', limit_price: 'Infinity', agent_valid_time: '1700000000000' }));
    expect(invalidFields(res)).toEqual(['agent_valid_time', 'limit_price', 'notional', 'quantity']);
  });

  it('validation_failed: a fractional or negative agent_valid_time', async () => {
    expect(invalidFields(await authorize(h.order(agentId, { agent_valid_time: 1.5 })))).toEqual(['agent_valid_time']);
    expect(invalidFields(await authorize(h.order(agentId, { agent_valid_time: -1 })))).toEqual(['agent_valid_time']);
  });

  it('validation_failed: an unknown top-level field', async () => {
    const res = await authorize(h.order(agentId, { side: 'Long' }));
    expect(invalidFields(res)).toEqual(['side']);
    expect(errorFor(res, 'side')).toBe('is not a known field');
  });

  it('validation_failed: an unknown field in heartbeat', async () => {
    const hb = { ...h.heartbeat(1), nonce: 7 };
    const fields = invalidFields(await authorize(h.order(agentId, { heartbeat: hb })));
    expect(fields).toContain('heartbeat.nonce');
  });

  it('validation_failed: an unknown field in regulatory', async () => {
    const fields = invalidFields(await authorize(h.order(agentId, { regulatory: { jurisdiction: 'EU', lei: '5493001KJTIIGC8Y1R12' } })));
    expect(fields).toContain('regulatory.lei');
  });

  it('validation_failed: Limit without limit_price', async () => {
    const res = await authorize(h.order(agentId, { order_type: 'Limit', limit_price: undefined }));
    expect(invalidFields(res)).toEqual(['limit_price']);
    expect(errorFor(res, 'limit_price')).toBe('is required');
  });

  it('validation_failed: Limit with a null limit_price', async () => {
    expect(invalidFields(await authorize(h.order(agentId, { order_type: 'Limit', limit_price: null })))).toEqual(['limit_price']);
  });

  it('validation_failed: Stop without stop_price', async () => {
    const res = await authorize(h.order(agentId, { order_type: 'Stop', limit_price: undefined }));
    expect(invalidFields(res)).toEqual(['stop_price']);
    expect(errorFor(res, 'stop_price')).toBe('is required');
  });

  it('validation_failed: StopLimit missing both prices lists both', async () => {
    const res = await authorize(h.order(agentId, { order_type: 'StopLimit', limit_price: undefined }));
    expect(invalidFields(res)).toEqual(['limit_price', 'stop_price']);
  });

  it('validation_failed: Market with a limit_price (and with a stop_price)', async () => {
    expect(invalidFields(await authorize(h.order(agentId, { order_type: 'Market', limit_price: 190 })))).toEqual(['limit_price']);
    expect(invalidFields(await authorize(h.order(agentId, { order_type: 'Market', limit_price: undefined, stop_price: 190 })))).toEqual(['stop_price']);
  });

  it('validation_failed: Market with explicit null prices is accepted', async () => {
    const res = await authorize(h.order(agentId, { order_type: 'Market', limit_price: null, stop_price: null }));
    expect(res.statusCode, res.body).toBe(200);
  });

  it('validation_failed: a bad ISO 4217 shape (usd, US, USDX, 840)', async () => {
    for (const c of ['usd', 'US', 'USDX', '840', '']) {
      expect(invalidFields(await authorize(h.order(agentId, { notional_currency: c }))), c).toEqual(['notional_currency']);
    }
  });

  it('validation_failed: every missing required field is listed at once', async () => {
    const res = await authorize({});
    expect(invalidFields(res)).toEqual([
      'action',
      'agent_id',
      'agent_valid_time',
      'asset',
      'client_order_id',
      'feature_schema_id',
      'hyperparameter_checksum',
      'model_hash_hex',
      'model_id',
      'notional',
      'order_type',
      'prompt_version',
      'quantity',
      'venue_id',
    ]);
    expect(errorFor(res, 'agent_id')).toBe('is required');
  });

  it('validation_failed: missing and invalid fields together are all listed', async () => {
    const { asset: _a, venue_id: _v, ...order } = h.order(agentId, { quantity: -1, notional_currency: 'usd', reduce_only: 'yes', extra: 1 });
    expect(invalidFields(await authorize(order))).toEqual(['asset', 'extra', 'notional_currency', 'quantity', 'reduce_only', 'venue_id']);
  });

  it('validation_failed: empty strings and over-long strings', async () => {
    const res = await authorize(h.order(agentId, { asset: '', model_id: 'm'.repeat(257), client_order_id: 'c'.repeat(129) }));
    expect(invalidFields(res)).toEqual(['asset', 'client_order_id', 'model_id']);
  });

  it('validation_failed: a model_hash_hex that is not lowercase hex SHA-256', async () => {
    for (const hash of ['A'.repeat(64), 'a'.repeat(63), 'g'.repeat(64)]) {
      expect(invalidFields(await authorize(h.order(agentId, { model_hash_hex: hash })))).toEqual(['model_hash_hex']);
    }
  });

  it('validation_failed: a heartbeat with negative or missing fields', async () => {
    const fields = invalidFields(await authorize(h.order(agentId, { heartbeat: { sequence_id: -1, timestamp_ms: 1, signature: 'x' } })));
    expect(fields).toEqual(expect.arrayContaining(['heartbeat.regime_id', 'heartbeat.sequence_id']));
  });

  it('validation_failed: a NUL character in any stored text field (Postgres text cannot hold it) is a 422, not a 500', async () => {
    const res = await authorize(
      h.order(agentId, {
        asset: 'AA\u0000PL',
        model_id: 'a\u0000',
        venue_id: '\u0000',
        client_order_id: 'c-\u0000',
        regulatory: { jurisdiction: 'E\u0000U' },
      }),
    );
    // (`regulatory` itself is also listed, "must be null", from the other branch of the nullable block.)
    expect(invalidFields(res).filter((f) => f !== 'regulatory')).toEqual(['asset', 'client_order_id', 'model_id', 'regulatory.jurisdiction', 'venue_id']);
  });

  it('validation_failed: an unpaired UTF-16 surrogate (no JCS form, RFC 8785 §3.1) is a 422, not a 500', async () => {
    const res = await authorize(
      h.order(agentId, {
        asset: '\ud800',
        prompt_version: 'p\udc00',
        hyperparameter_checksum: 'x\udbff',
        regulatory: { mifid_decision_maker: '\udfff' },
      }),
    );
    expect(invalidFields(res).filter((f) => f !== 'regulatory')).toEqual([
      'asset',
      'hyperparameter_checksum',
      'prompt_version',
      'regulatory.mifid_decision_maker',
    ]);
  });

  it('a well-formed surrogate pair (an emoji) and other Unicode are accepted and sealed as sent', async () => {
    const res = await authorize(h.order(agentId, { asset: 'AAPL \u{1F600} Ünïcödé 株式', regulatory: { jurisdiction: '\u{1F1EA}\u{1F1FA}' } }));
    expect(res.statusCode, res.body).toBe(200);
    const trace = (await h.call('GET', `/engine/trace/${res.json().trace_id}`)).json();
    expect(trace.execution.asset).toBe('AAPL \u{1F600} Ünïcödé 株式');
    expect(trace.regulatory.jurisdiction).toBe('\u{1F1EA}\u{1F1FA}');
  });

  it('validation_failed: agent_valid_time past 9999-12-31T23:59:59.999Z (the last instant with a 4-digit ISO 8601 year) is a 422, not a 500', async () => {
    const res = await authorize(h.order(agentId, { agent_valid_time: 253_402_300_800_000 }));
    expect(invalidFields(res)).toEqual(['agent_valid_time']);
    expect(invalidFields(await authorize(h.order(agentId, { agent_valid_time: 8.64e15 + 1 })))).toEqual(['agent_valid_time']);
    expect(invalidFields(await authorize(h.order(agentId, { agent_valid_time: Number.MAX_SAFE_INTEGER })))).toEqual(['agent_valid_time']);
    // The last instant passes validation and is then judged against the clock: a valid time from the future.
    const last = await authorize(h.order(agentId, { agent_valid_time: 253_402_300_799_999 }));
    expect(last.statusCode, last.body).toBe(403);
    expect(last.json().code).toBe('agent_valid_time_future');
  });

  it('validation_failed: nothing invalid is stored', async () => {
    const before = await traceCount();
    await authorize(h.order(agentId, { quantity: 0 }));
    await authorize({});
    expect(await traceCount()).toBe(before);
  });
});

describe('tagged action', () => {
  it('accepts {"Long": q} when q equals quantity, and seals the plain "Long"', async () => {
    const res = await authorize(h.order(agentId, { action: { Long: 100 }, quantity: 100 }));
    expect(res.statusCode, res.body).toBe(200);
    const trace = (await h.call('GET', `/engine/trace/${res.json().trace_id}`)).json();
    expect(trace.execution.action).toBe('Long');
    const listed = (await h.call('GET', `/engine/traces?agent_id=${agentId}`))
      .json()
      .traces.find((t: { trace_id: string }) => t.trace_id === res.json().trace_id);
    expect(listed.action).toBe('Long');
  });

  it('accepts {"Short": q} when q equals quantity, and seals the plain "Short"', async () => {
    const res = await authorize(h.order(agentId, { action: { Short: 100 }, quantity: 100 }));
    expect(res.statusCode, res.body).toBe(200);
    expect((await h.call('GET', `/engine/trace/${res.json().trace_id}`)).json().execution.action).toBe('Short');
  });

  it('validation_failed: {"Long": q} with q different from quantity names action.Long', async () => {
    const res = await authorize(h.order(agentId, { action: { Long: 99 }, quantity: 100 }));
    expect(invalidFields(res)).toEqual(['action.Long']);
    expect(errorFor(res, 'action.Long')).toBe('must equal quantity (100), got 99');
  });

  it('validation_failed: malformed tagged forms ({"Neutral": q}, two keys, a string q)', async () => {
    for (const action of [{ Neutral: 100 }, { Long: 100, Short: 100 }, { Long: '100' }, { Long: 0 }, {}]) {
      expect(invalidFields(await authorize(h.order(agentId, { action }))), JSON.stringify(action)).toContain('action');
    }
  });
});

describe('transport', () => {
  it('invalid_json: a body that is not JSON is a 422 invalid_json', async () => {
    const res = await h.app.inject({
      method: 'POST',
      url: '/engine/authorize',
      payload: '{"agent_id": ',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ code: 'invalid_json', detail: 'the request body is not valid JSON' });
  });

  it('payload_too_large: a 2 MiB body is a 413', async () => {
    const body = JSON.stringify(h.order(agentId, { asset: 'x'.repeat(2 * 1024 * 1024) }));
    const res = await h.app.inject({
      method: 'POST',
      url: '/engine/authorize',
      payload: body,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBe(413);
    expect(res.json().code).toBe('payload_too_large');
    expect(typeof res.json().detail).toBe('string');
  });
});

describe('authentication', () => {
  it('unauthorized: no token is a 401 with a Bearer challenge', async () => {
    const res = await authorize(h.order(agentId), null);
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('unauthorized');
    expect(res.headers['www-authenticate']).toMatch(/^Bearer /);
  });

  it('unauthorized: an unknown or malformed token is a 401', async () => {
    expect((await authorize(h.order(agentId), 'tse_not-a-real-token')).statusCode).toBe(401);
    expect((await authorize(h.order(agentId), 'garbage')).statusCode).toBe(401);
  });

  it('unauthorized: a revoked token is a 401', async () => {
    const issued = (await h.call('POST', '/engine/admin/tokens', { client_name: 'soon-revoked', agent_ids: [agentId] })).json();
    expect((await authorize(h.order(agentId), issued.token)).statusCode).toBe(200);
    expect((await h.call('DELETE', `/engine/admin/tokens/${issued.token_id}`)).statusCode).toBe(200);
    const res = await authorize(h.order(agentId), issued.token);
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('unauthorized');
  });

  it('forbidden: an auditor token reads but cannot authorize (403), and nothing is stored', async () => {
    const auditor = (await h.call('POST', '/engine/admin/tokens', { client_name: 'audit', role: 'auditor' })).json().token as string;
    const before = await traceCount();
    const res = await authorize(h.order(agentId), auditor);
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('forbidden');
    expect(await traceCount()).toBe(before);
    expect((await h.call('GET', `/engine/traces?agent_id=${agentId}`, undefined, auditor)).statusCode).toBe(200);
  });
});

describe('nullable objects', () => {
  it('an invalid heartbeat object lists its own bad fields, without the null branch\'s "must be null"', async () => {
    const res = await authorize(h.order(agentId, { heartbeat: { sequence_id: -1, timestamp_ms: 1, regime_id: 0 } }));
    expect(res.statusCode).toBe(422);
    const errors = res.json().errors as Array<{ field: string; message: string }>;
    expect(errors.map((e) => e.field).sort()).toEqual(['heartbeat.sequence_id', 'heartbeat.signature']);
    expect(errors.some((e) => e.message === 'must be null')).toBe(false);
  });

  it('a heartbeat of the wrong type says what it must be', async () => {
    const res = await authorize(h.order(agentId, { heartbeat: 'hb' }));
    expect(res.json().errors).toEqual([{ field: 'heartbeat', message: 'must be object' }]);
  });
});
