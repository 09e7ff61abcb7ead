/**
 * Text no store can hold is refused at the edge, before the store sees it. On every `/engine` operation that
 * takes a JSON body, a path parameter or a query string, and on every `/irl` path that reaches one, each text
 * field (every string of the body's schema, every path and query parameter) is sent with a NUL (U+0000, which
 * PostgreSQL text cannot hold), with a lone UTF-16 surrogate (which no UTF-8 text can carry) and with 1 MB of
 * text (within the 1 MiB body limit, beyond every field's maxLength). Each must be a 4xx, never a 5xx; a 422
 * names the field and no other; and no statement reaches the store while the request is answered.
 *
 * The operations and fields are read from the API document (../helpers/request-fields.ts) and the `/irl`
 * paths from the edge's own routing, so an operation or field added later is covered without editing this.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineUrlOf } from '../../src/http/irl/paths.js';
import { engineHarness, type EngineHarness } from '../helpers/engine.js';
import type { OpenApiDocument } from '../helpers/openapi.js';
import { operationInputs, urlOf, withValueAt, type OperationInput, type TextField } from '../helpers/request-fields.js';

const MB = 1_000_000;
/** Each bad text as a JSON string holds it and as a URL carries it (a lone surrogate only as its WTF-8 bytes). */
const BAD = [
  { label: 'NUL', text: 'x\u0000y', wire: 'x%00y' },
  { label: 'lone surrogate', text: 'x\uD800y', wire: 'x%ED%A0%80y' },
  { label: '1 MB', text: 'a'.repeat(MB), wire: 'a'.repeat(MB) },
] as const;

interface Case {
  route: string;
  method: string;
  url: string;
  body: unknown;
  field: TextField;
  bad: string;
}

/** The `/irl` path that the edge routes to `enginePath` (a document template), or null when none does. */
function irlPathOf(enginePath: string): string | null {
  const rest = enginePath.slice('/engine/'.length);
  const candidates = [`/irl/${rest}`, ...(rest.startsWith('admin/') ? [`/irl/${rest.slice('admin/'.length)}`] : [])];
  const concrete = (p: string) => p.replace(/\{[^}]+\}/g, 'p');
  return candidates.find((c) => engineUrlOf(concrete(c)) === concrete(enginePath)) ?? null;
}

/** One request per operation, field and bad text, on `path` (the operation's own, or its `/irl` path). */
function casesOf(op: OperationInput, path: string): Case[] {
  return op.fields.flatMap((field) =>
    BAD.map((bad) => {
      const params = field.in === 'path' ? { ...op.params, [field.name]: bad.wire } : op.params;
      const query = field.in === 'query' ? { ...op.query, [field.name]: bad.wire } : op.query;
      const body = field.in === 'body' && op.bodySchema ? withValueAt(op.body, op.bodySchema, field.at, bad.text) : op.body;
      return { route: `${op.method} ${path}`, method: op.method, url: urlOf(path, params, query), body, field, bad: bad.label };
    }),
  );
}

/** What is wrong with the answer to a refused request; nothing when it was refused as it should be. */
function problemsOf(c: Case, res: LightMyRequestResponse, statements: string[]): string[] {
  const at = `${c.route} ${c.field.in} ${c.field.name} (${c.bad})`;
  const problems: string[] = [];
  if (res.statusCode < 400 || res.statusCode >= 500) problems.push(`${at}: answered ${res.statusCode} ${res.body.slice(0, 200)}`);
  if (statements.length > 0) problems.push(`${at}: ${statements.length} statement(s) reached the store: ${statements.join('; ')}`);
  const body = res.statusCode === 422 ? (res.json() as { code: string; errors?: Array<{ field: string }> }) : null;
  if (body?.code === 'validation_failed') {
    // A path parameter beyond the router's 100 characters is named `path` (src/http/error-handler.ts).
    const named = new Set([c.field.name, ...(c.field.in === 'path' ? ['path'] : [])]);
    const fields = (body.errors ?? []).map((e) => e.field);
    if (fields.length === 0 || fields.some((f) => !named.has(f))) problems.push(`${at}: the 422 names ${JSON.stringify(fields)}, not only ${c.field.name}`);
  }
  return problems;
}

describe('text no store can hold (NUL, a lone surrogate, 1 MB) in any field of /engine and /irl', () => {
  let h: EngineHarness;
  let inputs: OperationInput[];
  /** Every statement sent to the store since the refusals began, shortened. */
  const statements: string[] = [];

  beforeAll(async () => {
    // The longest refresh period: the token cache trusts its entries two periods past its last poll.
    h = await engineHarness({ config: { stateRefreshMs: 1000 } });
    inputs = operationInputs(h.app.swagger() as unknown as OpenApiDocument, '/engine/');
    // Only requests reach the store now: the state and token caches stop polling (the token cache is polled,
    // and the owner token cached, by hand before each request), and every statement is counted.
    h.ctx.state.stop();
    h.ctx.tokens.stop();
    await h.ctx.state.refresh();
    h.store.sql.options.debug = (_connection, text) => {
      statements.push(text.replace(/\s+/g, ' ').trim().slice(0, 100));
    };
  });
  afterAll(async () => h.close());

  /** The owner token cached and trusted for the next request, so authenticating it reads nothing. */
  async function ownerTokenCached(): Promise<void> {
    await h.ctx.tokens.poll();
    await h.ctx.tokens.find(h.ownerToken);
  }

  async function refusals(cases: Case[]): Promise<string[]> {
    const problems: string[] = [];
    for (const c of cases) {
      await ownerTokenCached();
      const before = statements.length;
      const res = await h.call(c.method, c.url, c.body);
      problems.push(...problemsOf(c, res, statements.slice(before)));
    }
    return problems;
  }

  it('covers every operation with input, and every field of the order on both paths', () => {
    const routes = inputs.map((op) => `${op.method} ${op.path}`);
    expect(routes).toEqual(
      expect.arrayContaining(['POST /engine/authorize', 'GET /engine/traces', 'DELETE /engine/admin/tokens/{token_id}', 'POST /engine/admin/reconcile']),
    );
    const authorize = inputs.find((op) => op.path === '/engine/authorize');
    expect(authorize?.fields.map((f) => f.name)).toEqual(expect.arrayContaining(['model_id', 'heartbeat.mta_ref', 'regulatory.jurisdiction']));
    expect(irlPathOf('/engine/authorize')).toBe('/irl/authorize');
    expect(irlPathOf('/engine/admin/agents/{agent_id}/status')).toBe('/irl/agents/{agent_id}/status');
  });

  it('refuses it with a 4xx naming the field, before any statement, on every /engine operation', async () => {
    const cases = inputs.flatMap((op) => casesOf(op, op.path));
    expect(cases.length).toBeGreaterThan(100);
    expect(await refusals(cases)).toEqual([]);
  });

  it("refuses it the same way on every /irl path, the order's model_id among them", async () => {
    const cases = inputs.flatMap((op) => {
      const irl = irlPathOf(op.path);
      return irl ? casesOf(op, irl) : [];
    });
    expect(cases.map((c) => `${c.route} ${c.field.name}`)).toContain('POST /irl/authorize model_id');
    expect(await refusals(cases)).toEqual([]);
  });

  it('never lets a bad bearer token or request id header reach the store or fail the server', async () => {
    for (const bad of BAD) {
      for (const path of ['/engine/traces', '/irl/traces']) {
        await ownerTokenCached();
        const before = statements.length;
        const token = await h.app.inject({ url: path, headers: { authorization: `Bearer ${bad.text}` } });
        expect(token.statusCode, `${path} Authorization with ${bad.label}`).toBe(401);
        expect(statements.slice(before), `${path} Authorization with ${bad.label}`).toEqual([]);
        const id = await h.app.inject({ url: path, headers: { authorization: `Bearer ${h.ownerToken}`, 'x-request-id': bad.text } });
        expect(id.statusCode, `${path} X-Request-Id with ${bad.label}`).toBe(200);
        expect(id.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
        // The listing read the store: the counter that saw nothing for the refusals sees statements.
        expect(statements.length).toBeGreaterThan(before);
      }
    }
  });
});
