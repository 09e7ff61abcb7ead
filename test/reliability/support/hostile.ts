/**
 * Hostile request bodies for a route, generated from its JSON Schema in the API document (seeded, so a failure
 * can be replayed): a valid body first (the documented example, else one built from the schema), then mutated
 * the ways a careless or malicious client sends them. Each body is raw bytes with the Content-Type it is sent
 * with, since half of what is hostile (invalid UTF-8, duplicate member names, nesting no parser survives, a
 * stray NUL) cannot be built as a JavaScript value and serialised.
 */

export interface HostileBody {
  /** What was done to the valid body, for the failure message. */
  what: string;
  bytes: Buffer;
  contentType: string | null;
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Schema = Record<string, unknown>;

/** mulberry32: a small seeded generator (the same seed, the same bodies). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class HostileBodies {
  private readonly pick = <T>(xs: readonly T[]): T => xs[Math.floor(this.random() * xs.length)] as T;

  constructor(
    private readonly random: () => number,
    private readonly resolve: (schema: Schema) => Schema,
  ) {}

  /** A body the schema accepts, as far as a generator can tell (patterns are not solved: examples carry those). */
  valid(schema: Schema, depth = 0): Json {
    const s = this.resolve(schema);
    if ('example' in s) return structuredClone(s.example) as Json;
    if (Array.isArray(s.examples) && s.examples.length > 0) return structuredClone(s.examples[0]) as Json;
    if ('const' in s) return s.const as Json;
    if (Array.isArray(s.enum)) return this.pick(s.enum as Json[]);
    const alternatives = (s.oneOf ?? s.anyOf) as Schema[] | undefined;
    if (alternatives) return this.valid(this.pick(alternatives), depth + 1);
    const type = Array.isArray(s.type) ? ((s.type as string[]).find((t) => t !== 'null') ?? 'null') : (s.type as string | undefined);
    switch (type) {
      case 'object': {
        const out: Record<string, Json> = {};
        const props = (s.properties ?? {}) as Record<string, Schema>;
        for (const name of (s.required ?? []) as string[]) if (props[name] && depth < 6) out[name] = this.valid(props[name], depth + 1);
        return out;
      }
      case 'array':
        return depth < 6 && s.items ? [this.valid(s.items as Schema, depth + 1)] : [];
      case 'integer':
        return typeof s.minimum === 'number' ? Math.max(s.minimum, 1) : 1;
      case 'number':
        return typeof s.minimum === 'number' ? Math.max(s.minimum, 1) : 1;
      case 'boolean':
        return true;
      case 'null':
        return null;
      default:
        return s.format === 'uuid'
          ? '00000000-0000-4000-8000-000000000000'
          : s.format === 'date'
            ? '2025-01-02'
            : s.format === 'date-time'
              ? '2025-01-02T00:00:00Z'
              : s.format === 'email'
                ? 'someone@example.test'
                : 'x';
    }
  }

  /**
   * The `i`-th hostile body for `schema`. The first ones go through every text-level and framing mutation once
   * each, the costly ones (nesting hundreds of thousands deep, a megabyte of text) included; the rest are drawn
   * at random from the structural mutations and the cheap text-level and framing ones.
   */
  body(schema: Schema, i: number): HostileBody {
    const base = this.valid(schema);
    // The options are built only when one is drawn (a structural mutation needs none): their number never changes.
    const counts = (this.counts ??= { once: this.once(base).length, framing: this.framingOptions(base).length });
    if (i < counts.once) return this.textual(this.once(base)[i]!, i);
    if (i < counts.once + counts.framing) return this.framed(this.framingOptions(base)[i - counts.once]!, i);
    const r = this.random();
    if (r < 0.5) return this.structural(base, i);
    if (r < 0.85) return this.textual(this.pick(this.textOptions(base).light), i);
    return this.framed(this.pick(this.framingOptions(base)), i);
  }

  private counts: { once: number; framing: number } | undefined;

  /** Every text-level mutation, the costly ones included: each is sent once per endpoint. */
  private once(base: Json): Array<[string, () => Buffer]> {
    const text = this.textOptions(base);
    return [...text.light, ...text.heavy];
  }

  // ------------------------------------------------------------------------------------ value-level mutations

  private static readonly HUGE: readonly Json[] = [1e308, -1e308, 9007199254740993, -9007199254740993, 5e-324, -0, 2 ** 64, 1e21, 0.1, -1];
  private static readonly NAMES: readonly string[] = [
    '__proto__',
    'constructor',
    'prototype',
    '',
    ' ',
    'a\u0000b',
    '\ud800',
    'x'.repeat(300),
    '$ref',
    'toString',
    'hasOwnProperty',
    '💥',
  ];

  /** A random path (list of keys and indexes) into `value`, possibly the root. */
  private somePath(value: Json): Array<string | number> {
    const path: Array<string | number> = [];
    let at: Json = value;
    while (at !== null && typeof at === 'object' && this.random() < 0.7) {
      const keys: Array<string | number> = Array.isArray(at) ? at.map((_, i) => i) : Object.keys(at);
      if (keys.length === 0) break;
      const k = this.pick(keys);
      path.push(k);
      at = (at as Record<string | number, Json>)[k] as Json;
    }
    return path;
  }

  private setAt(root: Json, path: Array<string | number>, value: Json | undefined): Json {
    if (path.length === 0) return value ?? null;
    let parent = root as Record<string | number, Json>;
    for (const k of path.slice(0, -1)) parent = parent[k] as Record<string | number, Json>;
    const last = path[path.length - 1]!;
    if (value === undefined) {
      if (Array.isArray(parent)) parent.splice(Number(last), 1);
      else delete parent[last];
    } else {
      // Own property even for `__proto__`, as JSON.parse would make it.
      Object.defineProperty(parent, last, { value, enumerable: true, configurable: true, writable: true });
    }
    return root;
  }

  private otherValue(): Json {
    return this.pick<() => Json>([
      () => null,
      () => true,
      () => 0,
      () => -1,
      () => '',
      () => [],
      () => ({}),
      () => 'null',
      () => '1',
      () => [null],
      () => this.pick(HostileBodies.HUGE),
      () => 'x'.repeat(1 + Math.floor(this.random() * 100_000)),
      () => `a\u0000b`,
      () => '\ud800',
      () => '\udc00x\ud800',
      () => '2025-13-45',
      () => '../../etc/passwd',
      () => "'; drop table traces; --",
      () => '<script>alert(1)</script>',
      () => '%00',
      () => '\u202e\u0000\uffff',
      () => ({ $ne: null }),
      () => ['a', 1, null, {}],
      () => this.nested(1 + Math.floor(this.random() * 2000)),
    ])();
  }

  /** Arrays and objects within each other, `depth` deep. */
  private nested(depth: number): Json {
    let v: Json = 1;
    for (let d = 0; d < depth; d++) v = this.random() < 0.5 ? [v] : { a: v };
    return v;
  }

  private structural(base: Json, i: number): HostileBody {
    let value = structuredClone(base);
    const steps: string[] = [];
    const count = 1 + Math.floor(this.random() * 3);
    for (let n = 0; n < count; n++) {
      const path = this.somePath(value);
      const where = path.length === 0 ? 'the body' : path.join('.');
      const op = this.random();
      if (op < 0.3 && path.length > 0) {
        value = this.setAt(value, path, undefined);
        steps.push(`dropped ${where}`);
      } else if (op < 0.75 || path.length === 0) {
        value = this.setAt(value, path, this.otherValue());
        steps.push(`replaced ${where}`);
      } else {
        const parentPath = path.slice(0, -1);
        let parent: Json = value;
        for (const k of parentPath) parent = (parent as Record<string | number, Json>)[k] as Json;
        if (parent !== null && typeof parent === 'object' && !Array.isArray(parent)) {
          const name = this.pick(HostileBodies.NAMES);
          Object.defineProperty(parent, name, { value: this.otherValue(), enumerable: true, configurable: true, writable: true });
          steps.push(`added member ${JSON.stringify(name).slice(0, 40)} beside ${where}`);
        }
      }
    }
    return { what: `#${i} structural: ${steps.join('; ')}`, bytes: Buffer.from(JSON.stringify(value) ?? 'null', 'utf8'), contentType: 'application/json' };
  }

  // ------------------------------------------------------------------------------------ text-level mutations

  /** The text-level mutations of `base`: cheap ones, and costly ones (each sent once per endpoint). */
  private textOptions(base: Json): { light: Array<[string, () => Buffer]>; heavy: Array<[string, () => Buffer]> } {
    const text = JSON.stringify(base);
    const bytes = Buffer.from(text, 'utf8');
    const at = Math.floor(this.random() * (bytes.length + 1));
    const splice = (insert: Buffer, remove = 0): Buffer => Buffer.concat([bytes.subarray(0, at), insert, bytes.subarray(at + remove)]);
    const firstKey = /"([^"\\]+)":/.exec(text)?.[1] ?? 'a';
    const light: Array<[string, () => Buffer]> = [
      ['invalid UTF-8 (0xff)', () => splice(Buffer.from([0xff]))],
      ['invalid UTF-8 (overlong NUL c0 80)', () => splice(Buffer.from([0xc0, 0x80]))],
      ['invalid UTF-8 (encoded surrogate ed a0 80)', () => splice(Buffer.from([0xed, 0xa0, 0x80]))],
      ['invalid UTF-8 (truncated sequence e2 82)', () => Buffer.concat([bytes, Buffer.from([0xe2, 0x82])])],
      ['a raw NUL byte', () => splice(Buffer.from([0x00]))],
      ['a lone surrogate escape in a string', () => Buffer.from(text.replace(/"([^"\\]*)"(?!:)/, '"\\ud800$1"'), 'utf8')],
      ['a NUL escape in a string', () => Buffer.from(text.replace(/"([^"\\]*)"(?!:)/, '"$1\\u0000"'), 'utf8')],
      [`a duplicate member ${firstKey}`, () => Buffer.from(text.replace(/^\{/, `{"${firstKey}":${JSON.stringify(this.otherValue())},`), 'utf8')],
      ['a duplicate __proto__ member', () => Buffer.from(text.replace(/^\{/, '{"__proto__":{"admin":true},"__proto__":[],'), 'utf8')],
      ['truncated', () => bytes.subarray(0, at)],
      ['trailing garbage', () => Buffer.concat([bytes, Buffer.from(this.pick(['}', ']', ',', ' x', '\u0000', '{}', 'null', '\n\n{"a":1}']))])],
      ['a byte order mark', () => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes])],
      ['a number of 100,000 digits', () => Buffer.from(text.replace(/:(-?\d+(\.\d+)?)/, `:${'9'.repeat(100_000)}`), 'utf8')],
      ['an exponent of 1e999999', () => Buffer.from(text.replace(/:(-?\d+(\.\d+)?)/, ':1e999999'), 'utf8')],
      [
        'NaN and Infinity literals',
        () => Buffer.from(text.replace(/:(-?\d+(\.\d+)?)/, `:${this.pick(['NaN', 'Infinity', '-Infinity', '0x10', '+1', '.5', '1.', '01'])}`), 'utf8'),
      ],
      ['single quotes', () => Buffer.from(text.replace(/"/g, "'"), 'utf8')],
      ['comments', () => Buffer.from(`/* c */${text}// c`, 'utf8')],
      ['escaped control characters', () => Buffer.from(text.replace(/"([^"\\]*)"(?!:)/, '"\\b\\f\\n\\r\\t\\u001f\\u007f\\u2028"'), 'utf8')],
      ['unescaped control characters', () => Buffer.from(text.replace(/"([^"\\]*)"(?!:)/, '"\u0001\u001f\t\n"'), 'utf8')],
      ['a bare value instead of an object', () => Buffer.from(this.pick(['null', 'true', '0', '""', '[]', '[{}]', '"{}"', '-0', '1e400']), 'utf8')],
      ['empty', () => Buffer.alloc(0)],
      ['whitespace only', () => Buffer.from(' \n\t\r ', 'utf8')],
    ];
    const heavy: Array<[string, () => Buffer]> = [
      ['500,000 nested arrays', () => Buffer.from(`${'['.repeat(500_000)}${']'.repeat(500_000)}`, 'utf8')],
      ['200,000 nested objects', () => Buffer.from(`${'{"a":'.repeat(200_000)}1${'}'.repeat(200_000)}`, 'utf8')],
      ['deep nesting around a lone surrogate escape', () => Buffer.from(`${'['.repeat(200_000)}"\\ud800"${']'.repeat(200_000)}`, 'utf8')],
      ['deep nesting around a __proto__ member', () => Buffer.from(`${'{"a":'.repeat(100_000)}{"__proto__":{"x":1}}${'}'.repeat(100_000)}`, 'utf8')],
      ['deep nesting inside a member', () => Buffer.from(text.replace(/^\{/, `{"${firstKey}":${'['.repeat(100_000)}${']'.repeat(100_000)},`), 'utf8')],
      ['10,000 members', () => Buffer.from(`{${Array.from({ length: 10_000 }, (_, k) => `"m${k}":${k}`).join(',')}}`, 'utf8')],
      ['a string of 1,000,000 characters', () => Buffer.from(`{"${firstKey}":"${'a'.repeat(1_000_000)}"}`, 'utf8')],
      ['just over 1 MiB', () => Buffer.from(`{"${firstKey}":"${'a'.repeat(1024 * 1024)}"}`, 'utf8')],
    ];
    return { light, heavy };
  }

  private textual([what, make]: [string, () => Buffer], i: number): HostileBody {
    return { what: `#${i} text: ${what}`, bytes: make(), contentType: 'application/json' };
  }

  private static readonly LONG_CONTENT_TYPE = `application/json; x=${'y'.repeat(4000)}`;

  /** A plausible body under a Content-Type the API does not take, or none, or a lying charset. */
  private framingOptions(base: Json): Array<[string, string | null, () => Buffer]> {
    const text = JSON.stringify(base);
    const utf8 = (): Buffer => Buffer.from(text, 'utf8');
    return [
      ['no Content-Type', null, utf8],
      ['text/plain', 'text/plain', utf8],
      ['charset=utf-16le with UTF-16 bytes', 'application/json; charset=utf-16le', () => Buffer.from(text, 'utf16le')],
      ['charset=latin1', 'application/json; charset=latin1', () => Buffer.from(text, 'latin1')],
      ['a malformed Content-Type', 'application/json;;;charset==', utf8],
      ['application/json-patch+json', 'application/json-patch+json', utf8],
      ['multipart without a boundary', 'multipart/form-data', utf8],
      ['form-encoded', 'application/x-www-form-urlencoded', () => Buffer.from('a=1&b=%00&__proto__[x]=1', 'utf8')],
      ['a Content-Type of 4,000 characters', HostileBodies.LONG_CONTENT_TYPE, utf8],
      ['charset in capitals and quotes', 'APPLICATION/JSON; CHARSET="UTF-8"', utf8],
    ];
  }

  private framed([what, contentType, make]: [string, string | null, () => Buffer], i: number): HostileBody {
    return { what: `#${i} framing: ${what}`, bytes: make(), contentType };
  }
}
