/**
 * The RFC 8785 canonical JSON text (jcs.ts) of plain data, several times faster: authorize hashes an order and seals
 * a trace for every request, the FIX drop copy seals an ORPHAN trace and hashes an audit entry for every fill, and
 * the general path (a check walk, then the `canonicalize` package's walk, a JSON.stringify per value and a
 * character loop per string) was a large share of their time. `hashJson` (hash.ts) goes through it.
 *
 * Plain data is strings without lone surrogates, finite numbers, booleans, null, dense arrays of plain data and
 * objects (of Object's prototype, or none) without `toJSON` whose members are all plain data. Its canonical text
 * is built in one walk: members sorted by UTF-16 code units (`Array.prototype.sort`'s default, as `canonicalize`
 * sorts), each primitive as JSON.stringify writes it (which `canonicalize` uses too: ECMAScript number and string
 * rules). Anything else (undefined, a Date, a NaN, a lone surrogate, a hole, a cycle) is handed to `canonicalJson`
 * whole, which serialises it or throws its precise error: the text or error is always the one `canonicalJson` gives.
 */
import { canonicalJson } from './jcs.js';

/** No lone surrogate (String.prototype.isWellFormed, ES2024: Node 20 has it; the project's lib is ES2023). */
const wellFormed = (s: string): boolean => (s as string & { isWellFormed(): boolean }).isWellFormed();
/** Deeper than this is handed over whole (a cycle ends here too). */
const MAX_DEPTH = 64;

export function canonicalJsonOfPlain(value: unknown): string {
  return plainText(value, 0) ?? canonicalJson(value);
}

/** The canonical text of `value`, or undefined when it is not plain data. */
export function plainText(value: unknown, depth = 0): string | undefined {
  switch (typeof value) {
    case 'string':
      return wellFormed(value) ? JSON.stringify(value) : undefined;
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : undefined;
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      break;
    default:
      return undefined;
  }
  if (value === null) return 'null';
  if (depth >= MAX_DEPTH) return undefined;
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (!(i in value)) return undefined;
      const item = plainText(value[i], depth + 1);
      if (item === undefined) return undefined;
      out += i === 0 ? item : `,${item}`;
    }
    return `${out}]`;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return undefined;
  const object = value as Record<string, unknown>;
  if (typeof object.toJSON === 'function') return undefined;
  const keys = Object.keys(object).sort();
  let out = '{';
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    if (!wellFormed(key)) return undefined;
    const item = plainText(object[key], depth + 1);
    if (item === undefined) return undefined;
    out += `${i === 0 ? '' : ','}${JSON.stringify(key)}:${item}`;
  }
  return `${out}}`;
}
