/**
 * Request validation: the JSON Schemas on the routes are compiled by Ajv, the same schemas that generate the
 * OpenAPI document, so what is documented is what is enforced.
 *
 * Two Ajv instances, because the two halves of a request deserve different treatment:
 * - bodies are strict: no type coercion ("100" is not a number), unknown fields are errors, not stripped;
 * - query strings and path parameters arrive as text, so they are coerced to the declared types.
 * Both collect every error (`allErrors`), so a 422 lists every invalid field, not just the first.
 */
import { Ajv, type ErrorObject, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import type { FieldError } from '../errors.js';

// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;

const base: Options = { allErrors: true, removeAdditional: false, useDefaults: true, strict: false };

function makeAjv(coerceTypes: boolean | 'array'): Ajv {
  const ajv = new Ajv({ ...base, coerceTypes });
  addFormats(ajv);
  return ajv;
}

const bodyAjv = makeAjv(false);
const textAjv = makeAjv('array');

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : textAjv;
  return ajv.compile(schema as object) as ReturnType<FastifySchemaCompiler<unknown>>;
};

/** JSON pointer `/a/0/b` → dotted path `a[0].b`. */
function pointerToPath(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : acc === '' ? part : `${acc}.${part}`), '');
}

const join = (parent: string, child: string): string => (parent === '' ? child : `${parent}.${child}`);

function describe(e: ErrorObject): FieldError {
  const at = pointerToPath(e.instancePath);
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return { field: join(at, String(p.missingProperty)), message: 'is required' };
    case 'additionalProperties':
      return { field: join(at, String(p.additionalProperty)), message: 'is not a known field' };
    case 'enum':
      return { field: at, message: `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}` };
    case 'format':
      return { field: at, message: `must be a valid ${String(p.format)}` };
    default:
      return { field: at, message: e.message ?? 'is invalid' };
  }
}

const isNullBranch = (e: ErrorObject): boolean => e.keyword === 'type' && (e.params as { type?: unknown }).type === 'null';

/** Ajv errors → one entry per invalid field (the first message for a field wins; oneOf noise is dropped). */
export function fieldErrors(errors: ErrorObject[], part?: string): FieldError[] {
  const seen = new Map<string, FieldError>();
  // A nullable field (anyOf [T, null]) that fails as T also fails "must be null": noise when the value is
  // clearly meant as T, so that branch's complaint is dropped whenever another error names the same field.
  const paths = errors.filter((e) => !isNullBranch(e)).map((e) => e.instancePath);
  for (const e of errors) {
    if (e.keyword === 'oneOf' || e.keyword === 'anyOf' || e.keyword === 'if') continue;
    if (isNullBranch(e) && paths.some((p) => p === e.instancePath || p.startsWith(`${e.instancePath}/`))) continue;
    const fe = describe(e);
    const field = fe.field === '' ? (part ?? 'body') : fe.field;
    if (!seen.has(field)) seen.set(field, { field, message: fe.message });
  }
  if (seen.size === 0 && errors[0]) {
    const fe = describe(errors[0]);
    seen.set(fe.field || (part ?? 'body'), { field: fe.field || (part ?? 'body'), message: fe.message });
  }
  return [...seen.values()];
}
