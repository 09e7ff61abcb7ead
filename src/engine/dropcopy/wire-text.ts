/**
 * The stored text of bytes received on the FIX drop-copy session (`dropcopy_rejects.raw`): an exact, reversible
 * representation of the bytes, readable as the FIX log people know, in a text column that cannot hold every byte
 * (PostgreSQL's text refuses NUL, and a byte above 0x7F is not a character of any one encoding).
 *
 * The rules, byte by byte:
 * - SOH (0x01), FIX's field delimiter, is `|`;
 * - a printable ASCII byte (0x20 to 0x7E) other than `|` and `\` is itself;
 * - every other byte (NUL, the other control characters, DEL, `|`, `\`, and every byte from 0x80 to 0xFF) is
 *   `\x` and its two lowercase hex digits: `|` is `\x7c`, `\` is `\x5c`, 0xC9 is `\xc9`.
 * So a message of printable ASCII reads as it always did (`8=FIX.4.4|9=…|35=8|…|10=123|`), and `bytesOfWireText`
 * gives back the bytes exactly. Pure.
 */

const SOH = 0x01;
const PIPE = 0x7c;
const BACKSLASH = 0x5c;

/**
 * The text of `bytes`: a Buffer, or a string holding one byte per character (as the session reads a message:
 * latin1, each character's code the byte's value).
 */
export function wireTextOf(bytes: Buffer | string): string {
  const b = typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : bytes;
  let out = '';
  let plainFrom = 0;
  for (let i = 0; i < b.length; i++) {
    const byte = b[i] as number;
    if (byte >= 0x20 && byte <= 0x7e && byte !== PIPE && byte !== BACKSLASH) continue;
    out += b.toString('latin1', plainFrom, i) + (byte === SOH ? '|' : `\\x${byte.toString(16).padStart(2, '0')}`);
    plainFrom = i + 1;
  }
  return out + b.toString('latin1', plainFrom);
}

/** The bytes `wireTextOf` was given; throws on text it cannot have produced. */
export function bytesOfWireText(text: string): Buffer {
  const out: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === PIPE) {
      out.push(SOH);
    } else if (c === BACKSLASH) {
      const hex = text.slice(i + 1, i + 4);
      if (!/^x[0-9a-f]{2}$/.test(hex)) throw new Error(`not a stored FIX text: "\\${hex}" at ${i}`);
      out.push(Number.parseInt(hex.slice(1), 16));
      i += 3;
    } else if (c >= 0x20 && c <= 0x7e) {
      out.push(c);
    } else {
      throw new Error(`not a stored FIX text: character ${c} at ${i}`);
    }
  }
  return Buffer.from(out);
}

/** The first byte of `value` (one byte per character) outside printable ASCII, as `0xNN at position P`, or null. */
export function nonPrintableAscii(value: string): string | null {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || c > 0x7e) return `0x${c.toString(16).padStart(2, '0')} at position ${i + 1}`;
  }
  return null;
}
