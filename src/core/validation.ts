/**
 * Request validation: the JSON Schemas on the routes are compiled by Ajv, the same schemas that generate the
 * OpenAPI document, so what is documented is what is enforced.
 *
 * Two Ajv instances, because the two halves of a request deserve different treatment:
 * - bodies are strict: no type coercion ("100" is not a number), unknown fields are errors, not stripped;
 * - query strings and path parameters arrive as text, so they are coerced to the declared types.
 * Both collect every error (`allErrors`), so a 422 lists every invalid field, not just the first.
 *
 * Before any schema, every string of every part must be text a store can hold (./storable-text.ts: no NUL,
 * no lone surrogate), whatever the route's schema says: one rule, so no route reaches the store with it.
 */
import { Ajv, type ErrorObject, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import type { FieldError } from './errors.js';
import { unstorableText } from './storable-text.js';

// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;

const base: Options = { allErrors: true, removeAdditional: false, useDefaults: true, strict: false };

/**
 * RFC 9562 text form only: ajv-formats' `uuid` also admits a `urn:uuid:` prefix, which Postgres' uuid type
 * refuses, so such an id was a 500 instead of a 422.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Formats of this project, with the message a 422 gives for each (others: "must be a valid <format>"). */
const FORMAT_MESSAGES: Record<string, string> = {
  // Text a person reads later (a name, a reason) must say something: white space alone is refused.
  'non-blank': 'must not be blank',
};

function makeAjv(coerceTypes: boolean | 'array'): Ajv {
  const ajv = new Ajv({ ...base, coerceTypes });
  addFormats(ajv);
  ajv.addFormat('uuid', UUID);
  ajv.addFormat('non-blank', /\S/u);
  return ajv;
}

const bodyAjv = makeAjv(false);
const textAjv = makeAjv('array');

/** The part of a request a schema validates: bodies are strict, the others are text coerced to their types. */
export type RequestPart = 'body' | 'querystring' | 'params';

const ajvFor = (part: string | undefined): Ajv => (part === 'body' ? bodyAjv : textAjv);

type Validate = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

/**
 * The validator of a request part: text no store can hold is refused first (its errors listed first, so a
 * field's message says why), then the schema runs all the same, so the 422 still lists every invalid field.
 */
function compilePart(schema: object, part: string | undefined): Validate {
  const validate = ajvFor(part).compile(schema);
  const checked: Validate = (data) => {
    const unstorable = unstorableText(data);
    const valid = validate(data);
    checked.errors = unstorable.length === 0 ? validate.errors : [...unstorable, ...(validate.errors ?? [])];
    return valid && unstorable.length === 0;
  };
  return checked;
}

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  compilePart(schema as object, httpPart) as ReturnType<FastifySchemaCompiler<unknown>>;

/**
 * Validates `value` exactly as a request's `part` is validated (same Ajv, same options, same messages) and
 * returns the field errors a 422 would list, none when it is valid. Like the HTTP layer it fills in defaults
 * and, outside bodies, coerces text to the declared types, in `value` itself. The CLI checks its flags with
 * it, against the routes' own schemas.
 */
export function validatePart(schema: object, value: unknown, part: RequestPart): FieldError[] {
  const validate = compilePart(schema, part);
  return validate(value) ? [] : fieldErrors(validate.errors ?? [], part);
}

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
      return { field: at, message: FORMAT_MESSAGES[String(p.format)] ?? `must be a valid ${String(p.format)}` };
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
