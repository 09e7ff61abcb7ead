/**
 * The inputs of an API's operations, read from its OpenAPI document: for each operation that takes a JSON
 * body, path parameters or a query string, a request its schemas accept, and the text fields of that request:
 * every string of the body's schema (nested objects and array items included) and every path and query
 * parameter (text on the wire, whatever type it is read as). Tests that send bad text to every field take
 * their cases from here, so an operation or a field added to the document is covered without editing them.
 *
 * The valid request is the body's documented example where there is one, otherwise values made from the
 * schema (the first enum value, the minimum, a UUID, a date-time); a field set where the example has no parent
 * gets a parent made from the parent's schema, so only the field under test is ever wrong.
 */
import type { OpenApiDocument } from './openapi.js';
import { operations } from './openapi.js';

type Schema = Record<string, unknown>;
type PathStep = string | number;

export interface TextField {
  in: 'body' | 'path' | 'query';
  /** The field as a 422's `errors[].field` names it: `heartbeat.mta_ref`, `executions[0].asset`, `agent_id`. */
  name: string;
  /** Where it is in the body (body fields only). */
  at: PathStep[];
}

export interface OperationInput {
  method: string;
  /** The document's path template, `/engine/trace/{trace_id}`. */
  path: string;
  /** Valid path parameters and required query parameters, percent-encoded. */
  params: Record<string, string>;
  query: Record<string, string>;
  /** The body's schema, null when the operation takes none. */
  bodySchema: Schema | null;
  body: unknown;
  fields: TextField[];
}

const types = (s: Schema): unknown[] => [s.type].flat();
const branches = (s: Schema): Schema[] => [...((s.anyOf as Schema[]) ?? []), ...((s.oneOf as Schema[]) ?? []), ...((s.allOf as Schema[]) ?? [])];

/** The dotted name of a body path, as src/core/validation.ts names a field: `a[0].b`. */
export const fieldName = (at: PathStep[]): string =>
  at.reduce<string>((acc, step) => (typeof step === 'number' ? `${acc}[${step}]` : acc === '' ? step : `${acc}.${step}`), '');

/** Every path at which the schema admits a string (one array item stands for all). */
export function stringPaths(schema: Schema, at: PathStep[] = [], out = new Map<string, PathStep[]>()): PathStep[][] {
  if (types(schema).includes('string') || (Array.isArray(schema.enum) && schema.enum.some((v) => typeof v === 'string'))) out.set(fieldName(at), at);
  for (const [name, property] of Object.entries((schema.properties as Record<string, Schema>) ?? {})) stringPaths(property, [...at, name], out);
  if (schema.items) stringPaths(schema.items as Schema, [...at, 0], out);
  for (const branch of branches(schema)) stringPaths(branch, at, out);
  return [...out.values()];
}

const SAMPLE_UUID = '6f1c2a9e-3b4d-4e8f-9a0b-1c2d3e4f5a6b';

/** A value the schema accepts, made from its constraints (enough for the schemas of these APIs). */
export function sampleOf(schema: Schema): unknown {
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const first = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (first?.[0]) return sampleOf(first[0]);
  const type = types(schema).find((t) => t !== 'null');
  switch (type) {
    case 'object':
      return Object.fromEntries(
        ((schema.required as string[]) ?? []).map((name) => [name, sampleOf((schema.properties as Record<string, Schema>)[name] ?? {})]),
      );
    case 'array':
      return Array.from({ length: Number(schema.minItems ?? 0) }, () => sampleOf((schema.items as Schema) ?? {}));
    case 'integer':
    case 'number':
      return Math.min(Number(schema.maximum ?? Infinity), schema.minimum !== undefined ? Number(schema.minimum) : 1);
    case 'boolean':
      return true;
    case 'string':
      if (schema.format === 'uuid') return SAMPLE_UUID;
      if (schema.format === 'date-time') return '2026-01-05T14:30:00.000Z';
      if (schema.format === 'date') return '2026-01-05';
      return 'x'.repeat(Math.max(1, Number(schema.minLength ?? 1)));
    default:
      return null;
  }
}

/** The schema of the value at `at` in a body of `schema` (the first branch that has it). */
function schemaAt(schema: Schema, at: PathStep[]): Schema | null {
  if (at.length === 0) return schema;
  const [step, ...rest] = at;
  const child = typeof step === 'number' ? (schema.items as Schema | undefined) : (schema.properties as Record<string, Schema> | undefined)?.[step as string];
  if (child) return schemaAt(child, rest);
  for (const branch of branches(schema)) {
    const found = schemaAt(branch, at);
    if (found) return found;
  }
  return null;
}

/** A copy of `body` with `value` at `at`, parents the body lacks made from their schemas. */
export function withValueAt(body: unknown, schema: Schema, at: PathStep[], value: unknown): unknown {
  const root = structuredClone(body ?? sampleOf(schema)) as Record<PathStep, unknown>;
  let node = root;
  at.slice(0, -1).forEach((step, i) => {
    const existing = node[step];
    if (existing === null || typeof existing !== 'object') node[step] = sampleOf(schemaAt(schema, at.slice(0, i + 1)) ?? { type: 'object' });
    if (typeof at[i + 1] === 'number' && Array.isArray(node[step]) && (node[step] as unknown[]).length === 0) {
      (node[step] as unknown[]).push(sampleOf(schemaAt(schema, at.slice(0, i + 2)) ?? {}));
    }
    node = node[step] as Record<PathStep, unknown>;
  });
  node[at.at(-1) as PathStep] = value;
  return root;
}

interface Parameter {
  in: string;
  name: string;
  required?: boolean;
  schema?: Schema;
}
interface RequestBody {
  content?: Record<string, { schema?: Schema; example?: unknown; examples?: unknown }>;
}

/** Every operation under `prefix` that takes a body, a path parameter or a query string, with its text fields. */
export function operationInputs(doc: OpenApiDocument, prefix: string): OperationInput[] {
  return operations(doc)
    .filter(({ path }) => path.startsWith(prefix))
    .flatMap(({ path, method, op }) => {
      const parameters = (op.parameters ?? []) as Parameter[];
      const json = (op.requestBody as RequestBody | undefined)?.content?.['application/json'];
      if (parameters.length === 0 && !json) return [];
      const bodySchema = json?.schema ?? null;
      const example = json?.example ?? (Array.isArray(json?.examples) ? json.examples[0] : undefined);
      const sample = (p: Parameter) => encodeURIComponent(String(sampleOf(p.schema ?? {})));
      const fields: TextField[] = [
        ...parameters.filter((p) => p.in === 'path' || p.in === 'query').map((p) => ({ in: p.in as 'path' | 'query', name: p.name, at: [] })),
        ...(bodySchema ? stringPaths(bodySchema).map((at) => ({ in: 'body' as const, name: fieldName(at), at })) : []),
      ];
      return [
        {
          method: method.toUpperCase(),
          path,
          bodySchema,
          fields,
          params: Object.fromEntries(parameters.filter((p) => p.in === 'path').map((p) => [p.name, sample(p)])),
          query: Object.fromEntries(parameters.filter((p) => p.in === 'query' && p.required).map((p) => [p.name, sample(p)])),
          body: bodySchema ? structuredClone(example ?? sampleOf(bodySchema)) : undefined,
        },
      ];
    });
}

/** The URL of an operation; values are put in as given, so a caller may pass percent-encoded wire text. */
export function urlOf(path: string, params: Record<string, string>, query: Record<string, string>): string {
  const filled = path.replace(/\{([^}]+)\}/g, (_, name: string) => params[name] ?? '');
  const search = Object.entries(query)
    .map(([k, v]) => `${encodeURIComponent(k)}=${v}`)
    .join('&');
  return search === '' ? filled : `${filled}?${search}`;
}
