/**
 * The RFC 8785 canonical text (jcs.ts) of objects whose members are known in advance: authorize writes an order's
 * and a sealed trace's text for every request, always with the same members. A shape names each object's
 * members (a nested shape, or `null` for any plain value); their order and quoted names are worked out once, so
 * a value of the shape is written in one pass, without listing or sorting its members.
 *
 * A value not of its shape (a member missing or extra, an object of another prototype or with `toJSON`, a value
 * that is not plain data as jcs-plain.ts defines it) is handed to `canonicalJsonOfPlain` whole: the text or
 * error is always the one `canonicalJson` gives.
 */
import { canonicalJsonOfPlain, plainText } from './jcs-plain.js';

/** The members of an object: a nested object's shape (the member may also be null), or null for any plain value. */
export interface Shape {
  readonly [member: string]: Shape | null;
}

interface Compiled {
  names: readonly string[];
  /** `{"name":` for the first member, `,"name":` for the others: members sorted by UTF-16 code units. */
  prefixes: readonly string[];
  children: ReadonlyArray<Compiled | null>;
}

function compile(shape: Shape): Compiled {
  const names = Object.keys(shape).sort();
  return {
    names,
    prefixes: names.map((name, i) => `${i === 0 ? '{' : ','}${JSON.stringify(name)}:`),
    children: names.map((name) => {
      const child = shape[name];
      return child ? compile(child) : null;
    }),
  };
}

/** A writer of the canonical text of values of `shape`. */
export function canonicalWriter(shape: Shape): (value: object) => string {
  const compiled = compile(shape);
  return (value) => shaped(compiled, value) ?? canonicalJsonOfPlain(value);
}

/** The canonical text of `value` as an object of `c`, or undefined when it is not one. */
function shaped(c: Compiled, value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return undefined;
  const object = value as Record<string, unknown>;
  if (typeof object.toJSON === 'function') return undefined;
  // Exactly the shape's members: as many enumerable ones, each of the shape's its own.
  let count = 0;
  for (const _ in object) count++;
  if (count !== c.names.length) return undefined;
  if (count === 0) return '{}';
  let out = '';
  for (let i = 0; i < c.names.length; i++) {
    const name = c.names[i] as string;
    if (!Object.hasOwn(object, name)) return undefined;
    const member = object[name];
    const child = c.children[i];
    const text = child && member !== null ? shaped(child, member) : plainText(member, 1);
    if (text === undefined) return undefined;
    out += (c.prefixes[i] as string) + text;
  }
  return `${out}}`;
}
