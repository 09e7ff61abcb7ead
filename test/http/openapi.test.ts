/**
 * The API document served at `/openapi.json`, as a client's developer meets it: it lints clean under Redocly's
 * recommended rules (`redocly.yaml`), every operation says what a generated client needs (a stable
 * operationId, its credentials, the 4xx it can answer), and the committed client types
 * (test/helpers/openapi-types.ts) are the ones openapi-typescript generates from it.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWith } from '../../src/core/config.js';
import { buildApp } from '../../src/http/app.js';
import { documentServers } from '../../src/http/openapi.js';
import { testStore, type TestStore } from '../helpers/db.js';
import { generateClientTypes, lintDocument, operations, servedDocument, type OpenApiDocument } from '../helpers/openapi.js';
import { ResponseChecker, type ObservedResponse } from '../helpers/openapi-responses.js';

let store: TestStore;
let app: FastifyInstance;
let doc: OpenApiDocument;

beforeAll(async () => {
  store = await testStore();
  app = await buildApp(configWith({ logLevel: 'silent' }), { sql: store.sql, logger: false });
  doc = await servedDocument(app);
});

afterAll(async () => {
  await app?.close();
  await store?.close();
});

describe('the API document', () => {
  it("lints clean under redocly.yaml: Redocly's recommended rules, no error and no warning", async () => {
    expect(await lintDocument(doc)).toEqual([]);
  });

  it('names the servers: relative to where it is served, and the public address (PUBLIC_BASE_URL) unless it is a loopback one', () => {
    expect(doc.servers?.map((s) => s.url)).toEqual(['/']);
    const urls = (base: string | null) => documentServers(base).map((s) => s.url);
    expect(urls('https://signals.example.org')).toEqual(['/', 'https://signals.example.org']);
    expect(urls(null)).toEqual(['/']);
    for (const local of ['http://localhost:8080', 'http://127.0.0.1:3000', 'http://[::1]:8080']) expect(urls(local), local).toEqual(['/']);
  });

  it('gives every operation a unique camelCase operationId, declared tags and a security requirement', () => {
    const ops = operations(doc);
    expect(ops.length).toBeGreaterThan(20);
    const ids = ops.map(({ op }) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    const declared = new Set((doc.tags ?? []).map((t) => t.name));
    for (const { path, method, op } of ops) {
      const where = `${method.toUpperCase()} ${path}`;
      expect(op.operationId, where).toMatch(/^[a-z][a-zA-Z0-9]*$/);
      expect(op.tags?.length, where).toBeGreaterThan(0);
      for (const tag of op.tags ?? []) expect(declared, `${where}: tag ${tag}`).toContain(tag);
      expect(op.security, where).toBeDefined();
      const schemes = (op.security ?? []).flatMap((r) => Object.keys(r));
      if (path.startsWith('/engine/') && !path.endsWith('/health')) expect(schemes, where).toEqual(['bearer']);
      if (schemes.length === 0) expect(op.security, where).toEqual([]);
    }
    for (const tag of doc.tags ?? []) expect(tag.description, tag.name).toBeTruthy();
  });

  it('lists the 4xx each operation can answer: 401 with credentials, 403 for owner operations, 422 for input, 400 and 404 for path ids, 413 and 415 for bodies', () => {
    for (const { path, method, op } of operations(doc)) {
      const where = `${method.toUpperCase()} ${path}`;
      const statuses = Object.keys(op.responses);
      const params = op.parameters ?? [];
      if ((op.security ?? []).length > 0) expect(statuses, where).toContain('401');
      if (op.tags?.includes('engine admin')) expect(statuses, where).toContain('403');
      if (params.length > 0 || op.requestBody) expect(statuses, where).toContain('422');
      if (params.some((p) => p.in === 'path')) expect(statuses, where).toEqual(expect.arrayContaining(['400', '404']));
      if (op.requestBody) expect(statuses, where).toEqual(expect.arrayContaining(['413', '415']));
      for (const status of statuses.filter((s) => s.startsWith('4')))
        expect(op.responses[status]?.description, `${where} ${status}`).not.toBe('Default Response');
    }
  });

  it('shows request and response examples on the main operations', () => {
    const ops = new Map(operations(doc).map(({ op }) => [op.operationId, op]));
    const media = (id: string, status: string) => op(id).responses[status]?.content?.['application/json'] as { example?: unknown } | undefined;
    const op = (id: string) => {
      const found = ops.get(id);
      if (!found) throw new Error(`no operation ${id}`);
      return found;
    };
    for (const id of ['authorize', 'bindExecution', 'issueToken', 'registerAgent', 'publishRegime']) {
      expect((op(id).requestBody as { content: Record<string, { example?: unknown }> }).content['application/json']?.example, id).toBeDefined();
    }
    for (const [id, status] of [
      ['authorize', '200'],
      ['bindExecution', '200'],
      ['getTrace', '200'],
      ['verifyTrace', '200'],
      ['listTraces', '200'],
      ['getRegime', '200'],
      ['publishRegime', '201'],
      ['issueToken', '200'],
      ['listTokens', '200'],
      ['registerAgent', '201'],
      ['getAgent', '200'],
    ] as const) {
      expect(media(id, status)?.example, `${id} ${status}`).toBeDefined();
    }
  });

  it('generates the committed client types (`npm run openapi:types` regenerates them)', async () => {
    await expect(await generateClientTypes(doc)).toMatchFileSnapshot('../helpers/openapi-types.ts');
  });
});

describe('the response checker of the tests (test/helpers/openapi-responses.ts)', () => {
  const json = { 'content-type': 'application/json; charset=utf-8' };
  const shadow = { enabled: true, reason: 'dry run', changed_at: '2026-01-05T06:45:00.000Z', changed_by: 'cli' };
  const traceUrl = '/engine/trace/0b1e6a36-7d0e-4c53-9b46-1f1a3f6b2c11';
  const res = (over: Partial<ObservedResponse> & { payload?: unknown }): ObservedResponse => ({
    method: 'GET',
    url: '/engine/admin/shadow-mode',
    statusCode: 200,
    headers: json,
    body: JSON.stringify(over.payload ?? shadow),
    ...over,
  });
  let checker: ResponseChecker;
  beforeAll(() => {
    checker = new ResponseChecker(doc);
  });

  it('passes a response as documented, query strings and path parameters included', () => {
    expect(checker.problems(res({ url: '/engine/admin/shadow-mode?x=1' }))).toEqual([]);
    expect(checker.problems(res({ url: traceUrl, statusCode: 404, payload: { code: 'not_found', detail: 'no trace' } }))).toEqual([]);
  });

  it('names a missing required field, a wrong type and a value outside an enum', () => {
    const { changed_by: _omit, ...partial } = shadow;
    expect(checker.problems(res({ payload: partial }))).toEqual([expect.stringContaining("must have required property 'changed_by'")]);
    expect(checker.problems(res({ payload: { ...shadow, enabled: 'yes' } }))).toEqual([expect.stringContaining('/enabled must be boolean')]);
    expect(checker.problems(res({ url: traceUrl, payload: { integrity: { status: 'LOST' } } })).join('\n')).toMatch(
      /\/integrity\/status must be equal to one of the allowed values/,
    );
  });

  it('admits properties the document does not forbid', () => {
    expect(checker.problems(res({ payload: { ...shadow, note: 'extra' } }))).toEqual([]);
  });

  it('refuses a status the operation does not document, and a content type it does not', () => {
    expect(checker.problems(res({ statusCode: 409, payload: { code: 'conflict', detail: 'x' } }))).toEqual([
      expect.stringMatching(/^status 409 is not documented for GET \/engine\/admin\/shadow-mode/),
    ]);
    expect(checker.problems(res({ headers: { 'content-type': 'text/plain' } }))).toEqual([
      expect.stringMatching(/^content type text\/plain is not documented/),
    ]);
  });

  it('checks the global answers (404 on unknown paths, 405, 5xx) against the error body', () => {
    expect(checker.problems(res({ url: '/engine/nope', statusCode: 404, payload: { code: 'not_found', detail: 'no route' } }))).toEqual([]);
    expect(checker.problems(res({ method: 'PUT', statusCode: 405, payload: { code: 'method_not_allowed' } }))).toEqual([
      expect.stringContaining("must have required property 'detail'"),
    ]);
    expect(checker.problems(res({ statusCode: 500, payload: { code: 'internal', detail: 'fault', request_id: 'r-1' } }))).toEqual([]);
  });
});
