/**
 * The first duplicated member name of a JSON text, or null. RFC 8259 §4 says names within an object
 * SHOULD be unique and leaves duplicates to the parser; JSON.parse keeps the last one silently, so
 * `{"quantity": 1, "quantity": 7}` would be sealed as 7 while a reviewer of the raw request reads 1. A
 * compliance record must be exactly what was sent, so the engine refuses such a body.
 *
 * A single pass over text that JSON.parse has already accepted (so the grammar is known to be valid and only
 * strings, brackets, colons and commas need tracking). Names are compared after unescaping, so `"a"` and
 * `"\u0061"` are the same name. It runs on every request body, which is why it is a scanner of a few dozen
 * lines rather than a full parse: about ten times faster than building a syntax tree. Its answers are
 * checked against jsonc-parser's visitor on generated documents (test/http/duplicate-keys.test.ts).
 */

interface Frame {
  /** Member names seen so far; null for an array. */
  names: Set<string> | null;
  /** The current member name, or array index, for the error's path. */
  at: string | number;
}

const QUOTE = 34;
const BACKSLASH = 92;

/** The path of the first duplicated name (`heartbeat.sequence_id`, `legs[2].qty`), or null. */
export function firstDuplicateKey(text: string): string | null {
  const stack: Frame[] = [];
  let expectName = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const start = i;
      let escaped = false;
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === BACKSLASH) {
          escaped = true;
          i++;
          continue;
        }
        if (d === QUOTE) break;
      }
      if (!expectName) continue;
      const raw = text.slice(start, i + 1);
      const name = escaped ? (JSON.parse(raw) as string) : raw.slice(1, -1);
      const frame = stack[stack.length - 1] as Frame;
      frame.at = name;
      if (frame.names?.has(name)) return pathOf(stack);
      frame.names?.add(name);
      expectName = false;
    } else if (c === 123 /* { */) {
      stack.push({ names: new Set(), at: '' });
      expectName = true;
    } else if (c === 91 /* [ */) {
      stack.push({ names: null, at: 0 });
    } else if (c === 125 /* } */ || c === 93 /* ] */) {
      stack.pop();
    } else if (c === 44 /* , */) {
      const frame = stack[stack.length - 1] as Frame;
      if (frame.names) expectName = true;
      else frame.at = (frame.at as number) + 1;
    }
  }
  return null;
}

function pathOf(stack: Frame[]): string {
  let path = '';
  for (const f of stack) {
    if (f.names) path += path === '' ? String(f.at) : `.${String(f.at)}`;
    else path += `[${String(f.at)}]`;
  }
  return path;
}
