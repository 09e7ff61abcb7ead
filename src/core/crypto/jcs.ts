/**
 * RFC 8785 JSON Canonicalization Scheme (JCS): the one byte-exact JSON form tradeseal hashes and signs.
 *
 * Serialisation is the `canonicalize` package's: ECMAScript number and string rules (RFC 8785 §3.2.2) and
 * object members sorted by UTF-16 code units (§3.2.3). Before handing a value over, this module checks what
 * that package lets through or reports without a location, so a value either becomes valid canonical JSON
 * or throws a `TypeError` that names the problem and its path (`$.orders[2].price`):
 * - NaN and ±Infinity, which have no JSON form and MUST be rejected (§3.2.2.3);
 * - lone UTF-16 surrogates in strings or member names, excluded by I-JSON (§3.1, RFC 7493 §2.1);
 * - bigints, functions and symbols (the package would throw an opaque error, emit `"a":undefined`,
 *   or silently drop them), holes in sparse arrays (it would emit `[1,,3]`), and circular references.
 * `undefined` follows `JSON.stringify`: a member holding it is omitted, an array element becomes `null`;
 * `undefined` as the whole value is an error. Objects with `toJSON` (e.g. `Date`) are serialised through it.
 */
import canonicalize from 'canonicalize';

/** Matches a surrogate code unit that is not half of a well-formed pair (the `u` flag pairs them up). */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** Why a value has no canonical form; `path` (keys and indexes from the root) is filled in on the way out. */
interface Problem {
  reason: string;
  path: (string | number)[];
}

function problem(reason: string): Problem {
  return { reason, path: [] };
}

function formatPath(path: (string | number)[]): string {
  let text = '$';
  for (const step of path) {
    if (typeof step === 'number') text += `[${step}]`;
    else text += /^[A-Za-z_$][\w$]*$/.test(step) ? `.${step}` : `[${JSON.stringify(step)}]`;
  }
  return text;
}

/** The first reason `value` has no canonical JSON form, or undefined. Builds no strings unless it finds one. */
function findProblem(value: unknown, ancestors: Set<object>): Problem | undefined {
  switch (typeof value) {
    case 'undefined':
    case 'boolean':
      return undefined;
    case 'string':
      return LONE_SURROGATE.test(value) ? problem('contains a lone UTF-16 surrogate, which I-JSON forbids') : undefined;
    case 'number':
      return Number.isFinite(value) ? undefined : problem(`is ${value}, which has no JSON form (RFC 8785 §3.2.2.3)`);
    case 'bigint':
    case 'function':
    case 'symbol':
      return problem(`is a ${typeof value}, which has no JSON form`);
  }
  if (value === null) return undefined;
  const object = value as { toJSON?: unknown };
  if (ancestors.has(object)) return problem('is a circular reference');
  ancestors.add(object);
  try {
    if (typeof object.toJSON === 'function') return findProblem(object.toJSON(), ancestors);
    if (Array.isArray(object)) {
      for (let i = 0; i < object.length; i++) {
        const found = i in object ? findProblem(object[i], ancestors) : problem('is a hole in a sparse array');
        if (found !== undefined) {
          found.path.unshift(i);
          return found;
        }
      }
      return undefined;
    }
    for (const key in object) {
      if (!Object.hasOwn(object, key)) continue;
      if (LONE_SURROGATE.test(key)) return problem('has a member name with a lone UTF-16 surrogate, which I-JSON forbids');
      const found = findProblem((object as Record<string, unknown>)[key], ancestors);
      if (found !== undefined) {
        found.path.unshift(key);
        return found;
      }
    }
    return undefined;
  } finally {
    ancestors.delete(object);
  }
}

/**
 * The RFC 8785 canonical JSON text of `value` (a JS string; encode it as UTF-8 before hashing or signing).
 * @throws {TypeError} when `value` has no canonical form; the message names the problem and where it is.
 */
export function canonicalJson(value: unknown): string {
  if (value === undefined) throw new TypeError('cannot canonicalize undefined: it has no JSON form');
  const found = findProblem(value, new Set());
  if (found !== undefined) throw new TypeError(`cannot canonicalize: ${formatPath(found.path)} ${found.reason}`);
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError(`cannot canonicalize a value of type ${typeof value}`);
  return text;
}
