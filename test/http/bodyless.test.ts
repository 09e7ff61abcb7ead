/**
 * A request without a body that still declares `Content-Type: application/json`, as several client SDKs
 * send on DELETE and on body-less POSTs, is answered as if the header were absent: never 415, never
 * `invalid_json` for a body that was never sent, never a 5xx. Every route of both services, every method
 * the document lists, is sent such a request with credentials that pass authentication, so the answer is the
 * route's own; routes that need a body answer 422 `validation_failed` naming it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueAccountKey } from '../../src/signals/ops/keys.js';
import { engineHarness, type EngineHarness } from '../helpers/engine.js';
import { operations, servedDocument, type OpenApiDocument } from '../helpers/openapi.js';
import { responseChecker } from '../helpers/openapi-responses.js';

let h: EngineHarness;
let doc: OpenApiDocument;
let signalsKey: string;

beforeAll(async () => {
  h = await engineHarness();
  doc = await servedDocument(h.app);
  signalsKey = (await issueAccountKey(h.store.sql, { email: 'bodyless@example.test', tier: 'owner' })).api_key;
});

afterAll(async () => {
  await h?.close();
});

/** A path parameter value that passes its schema: a fresh UUID for ids, a trading day for dates. */
function fill(path: string): string {
  return path.replace(/\{([^}]+)\}/g, (_, name: string) => (name === 'date' ? '2024-03-15' : crypto.randomUUID()));
}

describe('a body-less request declaring Content-Type: application/json', () => {
  it("DELETE /engine/admin/tokens/{id} revokes the token: the SDK's way of sending it works", async () => {
    const issued = (await h.call('POST', '/engine/admin/tokens', { client_name: 'sdk' })).json();
    const res = await h.app.inject({
      method: 'DELETE',
      url: `/engine/admin/tokens/${issued.token_id}`,
      headers: { authorization: `Bearer ${h.ownerToken}`, 'content-type': 'application/json' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ token_id: issued.token_id });
    const after = await h.app.inject({ method: 'GET', url: '/engine/regime', headers: { authorization: `Bearer ${issued.token}` } });
    expect(after.statusCode).toBe(401);
  });

  it('a route that needs a body answers 422 validation_failed naming the body, not invalid_json', async () => {
    for (const contentType of ['application/json', 'application/json; charset=utf-8']) {
      const res = await h.app.inject({
        method: 'POST',
        url: '/engine/admin/tokens',
        headers: { authorization: `Bearer ${h.ownerToken}`, 'content-type': contentType },
      });
      expect(res.statusCode, res.body).toBe(422);
      expect(res.json().code).toBe('validation_failed');
      expect(res.json().errors[0].field).toBe('body');
    }
  });

  it('a body of blanks is no body; a body that is there is still parsed strictly', async () => {
    const blank = await h.app.inject({
      method: 'POST',
      url: '/engine/admin/tokens',
      payload: '  \n',
      headers: { authorization: `Bearer ${h.ownerToken}`, 'content-type': 'application/json' },
    });
    expect(blank.json().code).toBe('validation_failed');
    const broken = await h.app.inject({
      method: 'POST',
      url: '/engine/admin/tokens',
      payload: '{"client_name": ',
      headers: { authorization: `Bearer ${h.ownerToken}`, 'content-type': 'application/json' },
    });
    expect(broken.statusCode).toBe(422);
    expect(broken.json().code).toBe('invalid_json');
  });

  it('every route of both services, every method: no 415, no invalid_json, no 5xx, and a documented answer', async () => {
    const checker = responseChecker(doc);
    const seen: string[] = [];
    for (const { path, method } of operations(doc)) {
      const url = fill(path);
      const res = await h.app.inject({
        method: method.toUpperCase() as 'GET',
        url,
        headers: { authorization: `Bearer ${h.ownerToken}`, 'x-signals-key': signalsKey, 'content-type': 'application/json' },
      });
      const label = `${method.toUpperCase()} ${path} → ${res.statusCode} ${res.body.slice(0, 160)}`;
      expect(res.statusCode, label).not.toBe(415);
      const body = res.headers['content-type']?.toString().startsWith('application/json') ? res.json() : null;
      expect(body?.code, label).not.toBe('invalid_json');
      // 503 is the signal service's pipeline_lag (nothing is published in this store), not a fault.
      if (res.statusCode >= 500) expect(body?.code, label).toBe('pipeline_lag');
      checker.check({ method: method.toUpperCase(), url, statusCode: res.statusCode, headers: res.headers, body: res.body });
      seen.push(`${method.toUpperCase()} ${path}`);
    }
    expect(seen).toContain('DELETE /engine/admin/tokens/{token_id}');
    expect(seen.length).toBeGreaterThan(40);
  });
});
