/**
 * Searching a dump of the store (./dump.ts) for secrets, as someone holding a copy of it would:
 *
 * - `secretFoundIn`: where the bytes of a known secret occur, in any encoding a store or a dump writes bytes
 *   in: raw (Latin-1, as text), hex (either case), base64 (padded or not) and base64url;
 * - `byteStringsOf`: every byte string the dump holds, decoded: bytea (`\x…` hex), runs of hex, and base64 or
 *   base64url runs (a JSON value's bytes), each at least `minBytes` long; the candidates to try as keys;
 * - `tableOf`: the rows `pg_dump` wrote for one table (its COPY block), to search the rows that keep secrets.
 */

/** The encodings of `bytes` that occur in `dump`, by name; empty when none does. */
export function secretFoundIn(dump: string, bytes: Uint8Array): string[] {
  const b = Buffer.from(bytes);
  const base64 = b.toString('base64');
  const forms: Array<[string, string]> = [
    ['raw', b.toString('latin1')],
    ['hex', b.toString('hex')],
    ['HEX', b.toString('hex').toUpperCase()],
    ['base64', base64],
    ['base64 unpadded', base64.replace(/=+$/, '')],
    ['base64url', b.toString('base64url')],
  ];
  return forms.filter(([, text]) => dump.includes(text)).map(([name]) => name);
}

/** Every distinct byte string of at least `minBytes` the dump spells in hex, base64 or base64url. */
export function byteStringsOf(dump: string, minBytes = 32): Buffer[] {
  const seen = new Set<string>();
  const out: Buffer[] = [];
  const add = (bytes: Buffer): void => {
    if (bytes.length < minBytes) return;
    const key = bytes.toString('hex');
    if (seen.has(key)) return;
    seen.add(key);
    out.push(bytes);
  };
  const minHex = 2 * minBytes;
  for (const m of dump.matchAll(new RegExp(`[0-9a-fA-F]{${minHex},}`, 'g'))) add(Buffer.from(m[0].slice(0, m[0].length - (m[0].length % 2)), 'hex'));
  const minB64 = Math.ceil((4 * minBytes) / 3);
  for (const m of dump.matchAll(new RegExp(`[A-Za-z0-9+/_-]{${minB64},}={0,2}`, 'g'))) {
    const text = m[0];
    add(Buffer.from(text, /[-_]/.test(text) ? 'base64url' : 'base64'));
  }
  return out;
}

/** Every `size`-byte window of `bytes`. */
export function* windows(bytes: Buffer, size = 32): Generator<Buffer> {
  for (let i = 0; i + size <= bytes.length; i++) yield bytes.subarray(i, i + size);
}

/** The COPY block of `table` (`public.name`) in a `pg_dump`: its header line and rows, without the final `\.`. */
export function tableOf(dump: string, table: string): string {
  const start = dump.indexOf(`COPY ${table} (`);
  if (start < 0) throw new Error(`no COPY block of ${table} in the dump`);
  const end = dump.indexOf('\n\\.\n', start);
  return dump.slice(start, end < 0 ? undefined : end);
}
