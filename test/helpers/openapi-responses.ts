/**
 * Checks a response against the API document: the status must be one the operation documents, the content
 * type one of its media types, and the body must validate against the documented schema (Ajv, JSON Schema
 * 2020-12 as OpenAPI 3.1 uses it). Strict where the document is (required fields, types, enums, formats),
 * lenient where it is (undeclared properties pass unless a schema forbids them).
 *
 * Global answers are checked against the error body: 404 and 405 on paths or methods no operation has,
 * 405 on any path, and 5xx (`{code: "internal", request_id}`). Routes outside the document (`/docs`) are
 * not checked. The engine's test harness (./engine.ts) checks every response its `call()` receives.
 */
import addFormatsModule from 'ajv-formats';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import { errorBody } from '../../src/core/schemas.js';
import { HTTP_METHODS, type OpenApiDocument } from './openapi.js';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

export interface ObservedResponse {
  method: string;
  /** The request URL, query string included. */
  url: string;
  statusCode: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
}

type Route = { path: string; method: string };

const DOC_ID = 'openapi.json';
const pointer = (...segments: string[]): string => segments.map((s) => `/${encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1'))}`).join('');

export class ResponseChecker {
  private readonly ajv: Ajv2020;
  private readonly router = FindMyWay({ ignoreTrailingSlash: true });
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly errorValidator: ValidateFunction;

  constructor(private readonly doc: OpenApiDocument) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
    addFormats(this.ajv);
    this.ajv.addFormat('non-blank', /\S/u);
    this.ajv.addSchema(doc as object, DOC_ID);
    this.errorValidator = this.ajv.compile(errorBody);
    for (const [path, item] of Object.entries(doc.paths)) {
      const template = path.replace(/\{([^}]+)\}/g, ':$1');
      for (const method of HTTP_METHODS.filter((m) => item[m])) {
        this.router.on(method.toUpperCase() as HTTPMethod, template, () => {}, { path, method } satisfies Route);
      }
    }
  }

  /** What is wrong with the response, by the document: nothing when it is as documented. */
  problems(res: ObservedResponse): string[] {
    const method = res.method.toUpperCase();
    if (method === 'HEAD' || method === 'OPTIONS') return [];
    const path = res.url.split('?')[0] ?? '/';
    const found = this.router.find(method as HTTPMethod, path);
    const route = found?.store as Route | undefined;
    if (!route) {
      // No operation: only the global answers are defined (an unknown path, or a method the path lacks).
      return res.statusCode === 404 || res.statusCode === 405 ? this.errorBodyProblems(res) : [];
    }
    const op = this.doc.paths[route.path]?.[route.method];
    const status = String(res.statusCode);
    const documented = op?.responses[status] ?? op?.responses[`${status[0]}XX`];
    if (!documented) {
      if (res.statusCode === 405 || res.statusCode >= 500) return this.errorBodyProblems(res);
      return [
        `status ${status} is not documented for ${route.method.toUpperCase()} ${route.path} (documented: ${Object.keys(op?.responses ?? {}).join(', ')})`,
      ];
    }
    if (!documented.content) return res.body === '' ? [] : [`status ${status} documents no body, got ${res.body.slice(0, 200)}`];
    const contentType =
      String(res.headers['content-type'] ?? '')
        .split(';')[0]
        ?.trim() ?? '';
    if (!(contentType in documented.content)) {
      return [`content type ${contentType || '(none)'} is not documented for status ${status} (documented: ${Object.keys(documented.content).join(', ')})`];
    }
    if (contentType !== 'application/json') return [];
    let body: unknown;
    try {
      body = JSON.parse(res.body);
    } catch {
      return [`the body is not JSON: ${res.body.slice(0, 200)}`];
    }
    const validate = this.validator(pointer('paths', route.path, route.method, 'responses', status, 'content', contentType, 'schema'));
    return validate(body) ? [] : this.describe(validate, `${route.method.toUpperCase()} ${route.path} ${status}`);
  }

  /** Throws, naming the request and every problem, when the response is not as documented. */
  check(res: ObservedResponse): void {
    const problems = this.problems(res);
    if (problems.length > 0) {
      throw new Error(
        `${res.method} ${res.url} answered ${res.statusCode} not as the API document says:\n  ${problems.join('\n  ')}\nbody: ${res.body.slice(0, 500)}`,
      );
    }
  }

  private validator(at: string): ValidateFunction {
    let v = this.compiled.get(at);
    if (!v) {
      v = this.ajv.compile({ $ref: `${DOC_ID}#${at}` });
      this.compiled.set(at, v);
    }
    return v;
  }

  private errorBodyProblems(res: ObservedResponse): string[] {
    let body: unknown;
    try {
      body = JSON.parse(res.body);
    } catch {
      return [`the error body is not JSON: ${res.body.slice(0, 200)}`];
    }
    return this.errorValidator(body) ? [] : this.describe(this.errorValidator, `error body of ${res.statusCode}`);
  }

  private describe(validate: ValidateFunction, what: string): string[] {
    return (validate.errors ?? []).map(
      (e) =>
        `${what}: ${e.instancePath || '(body)'} ${e.message ?? 'is invalid'}${e.params && 'allowedValues' in e.params ? ` (${JSON.stringify(e.params.allowedValues)})` : ''}`,
    );
  }
}

/** One checker per distinct document (every harness of a test file serves the same one). */
const checkers = new Map<string, ResponseChecker>();

export function responseChecker(doc: OpenApiDocument): ResponseChecker {
  const key = JSON.stringify(doc);
  let checker = checkers.get(key);
  if (!checker) {
    checker = new ResponseChecker(doc);
    checkers.set(key, checker);
  }
  return checker;
}
