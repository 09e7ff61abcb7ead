/**
 * Text a store can hold: the rule every string of a request passes, in its body, path parameters and query
 * string, whatever its schema says, before the schema itself is applied (./validation.ts). Two kinds of text
 * are refused, each as a field error of the 422 naming where it is:
 * - a NUL (U+0000): PostgreSQL `text` and `jsonb` cannot hold it (SQLSTATE 22021 and 22P05), so it reached
 *   the store as a 500, or was sealed in a trace whose text the store then could not keep;
 * - a lone UTF-16 surrogate: no UTF-8 text can carry one (RFC 3629 §3) and I-JSON forbids it (RFC 7493
 *   §2.1), so it can be neither stored nor sealed in canonical JSON (RFC 8785).
 * Member names are held to it too. One rule for every route, so a field added later cannot forget it; each
 * field's own schema still bounds its length (the `safeText` pattern of src/engine/schemas.ts says the
 * same for the fields that carry it, and the API document shows it).
 */
import type { ErrorObject } from 'ajv';

/** With the `u` flag a paired surrogate is one code point, so only a lone one matches. */
const NUL = /\u0000/;
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** Why `text` cannot be stored, or null when it can. */
export function unstorableReason(text: string): string | null {
  if (NUL.test(text)) return 'must not contain U+0000 (NUL), which no stored text can hold';
  if (LONE_SURROGATE.test(text)) return 'must not contain a lone UTF-16 surrogate, which no UTF-8 text can carry';
  return null;
}

const escapePointer = (name: string): string => name.replace(/~/g, '~0').replace(/\//g, '~1');

const refusal = (instancePath: string, message: string): ErrorObject => ({
  keyword: 'storableText',
  instancePath,
  schemaPath: '#/storableText',
  params: {},
  message,
});

/** An Ajv error for every string and member name of `value` that cannot be stored, at its JSON pointer. */
export function unstorableText(value: unknown, at = '', out: ErrorObject[] = []): ErrorObject[] {
  if (typeof value === 'string') {
    const reason = unstorableReason(value);
    if (reason !== null) out.push(refusal(at, reason));
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => unstorableText(item, `${at}/${i}`, out));
  } else if (value !== null && typeof value === 'object') {
    for (const [name, member] of Object.entries(value)) {
      const path = `${at}/${escapePointer(name)}`;
      const reason = unstorableReason(name);
      if (reason !== null) out.push(refusal(path, `(the member name) ${reason}`));
      else unstorableText(member, path, out);
    }
  }
  return out;
}
