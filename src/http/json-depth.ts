/**
 * How deeply a JSON text nests its arrays and objects, checked before it is parsed. No request of either
 * service nests deeper than a handful of levels, while a body of a million `[` costs a parse, a prototype
 * scan and a schema walk of a million levels (a quarter of a second of the server's only thread) before it
 * could be refused. One pass over the text, counting brackets outside strings, answers at the first level
 * too many; the text need not be valid JSON (the parser judges that afterwards).
 */

/** The deepest nesting a request body may have: ten times what any request of the interface needs. */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 34;
const BACKSLASH = 92;

/** True when `text` opens more than `max` arrays or objects within each other. */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === BACKSLASH) i++;
        else if (d === QUOTE) break;
      }
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > max) return true;
    } else if (c === 125 /* } */ || c === 93 /* ] */) {
      depth--;
    }
  }
  return false;
}
