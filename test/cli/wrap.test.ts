/** Prose fitted to a terminal (src/cli/wrap.ts): broken at spaces under its text, long words split, short lines and pipes untouched. */
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { wrapLine, wrapText } from '../../src/cli/wrap.js';

describe('wrapLine', () => {
  it('breaks at spaces; continuation lines hang under the text after a mark', () => {
    expect(wrapLine('✓ final_proof: SHA-256(reasoning_hash || "||" || exchange_tx_id) equals the stored final_proof', 40)).toEqual([
      '✓ final_proof: SHA-256(reasoning_hash ||',
      '  "||" || exchange_tx_id) equals the',
      '  stored final_proof',
    ]);
    expect(wrapLine('  mean 0.5  phi 0.9  theta 0.99  sigma2 0.01  loglik 23.2', 30)).toEqual([
      '  mean 0.5  phi 0.9  theta',
      '  0.99  sigma2 0.01  loglik',
      '  23.2',
    ]);
  });

  it('splits a word longer than a line, and leaves a line that fits as it is', () => {
    const lines = wrapLine(`hash ${'ab'.repeat(30)}`, 25);
    for (const l of lines) expect(stringWidth(l)).toBeLessThanOrEqual(25);
    expect(lines.join('')).toBe(`hash${'ab'.repeat(30)}`);
    expect(wrapLine('short', 25)).toEqual(['short']);
  });
});

describe('wrapText', () => {
  it('wraps each line; without a width it changes nothing', () => {
    const text = 'one two three four five six\nseven';
    expect(wrapText(text, 12)).toBe('one two\nthree four\nfive six\nseven');
    expect(wrapText(text, null)).toBe(text);
  });
});
