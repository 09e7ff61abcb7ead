/** The stored text of received bytes (src/engine/dropcopy/wire-text.ts): readable, and the bytes exactly. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bytesOfWireText, nonPrintableAscii, wireTextOf } from '../../../src/engine/dropcopy/wire-text.js';

describe('wireTextOf', () => {
  it('reads a message of printable ASCII as the FIX log does, SOH as |', () => {
    expect(wireTextOf('8=FIX.4.4\x019=5\x0135=0\x0110=161\x01')).toBe('8=FIX.4.4|9=5|35=0|10=161|');
  });

  it('writes every other byte, | and \\ included, as \\x and two hex digits', () => {
    expect(wireTextOf(Buffer.from([0x35, 0x35, 0x3d, 0x41, 0xc9, 0x7c, 0x5c, 0x00, 0x7f, 0x01]))).toBe('55=A\\xc9\\x7c\\x5c\\x00\\x7f|');
  });

  it('gives back the bytes exactly, whatever they are', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        const text = wireTextOf(Buffer.from(bytes));
        expect(/^[\x20-\x7e]*$/.test(text)).toBe(true);
        expect([...bytesOfWireText(text)]).toEqual([...bytes]);
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses text it cannot have produced', () => {
    expect(() => bytesOfWireText('55=\\q1')).toThrow(/not a stored FIX text/);
    expect(() => bytesOfWireText('55=\u00c9')).toThrow(/not a stored FIX text/);
  });
});

describe('nonPrintableAscii', () => {
  it('names the first byte outside 0x20-0x7E and its position', () => {
    expect(nonPrintableAscii('AAPL')).toBeNull();
    expect(nonPrintableAscii('AAP\u00c9\x1b')).toBe('0xc9 at position 4');
    expect(nonPrintableAscii('A\x7f')).toBe('0x7f at position 2');
  });
});
