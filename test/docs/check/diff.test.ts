/** The unified diff a failing documented output is reported with. */
import { describe, expect, it } from 'vitest';
import { unifiedDiff } from '../../../scripts/docs/check/diff.js';

const labels = { expected: 'doc.md:4 (documented)', actual: 'doc.md:4 (printed)' };

describe('unifiedDiff', () => {
  it('is empty for equal texts', () => {
    expect(unifiedDiff(['a', 'b'], ['a', 'b'], labels)).toBe('');
  });

  it('shows a changed line with its context, removal first', () => {
    const a = ['1', '2', '3', '4', '5', '6', '7', '8', '9'];
    const b = ['1', '2', '3', '4', 'five', '6', '7', '8', '9'];
    expect(unifiedDiff(a, b, labels)).toBe(['--- doc.md:4 (documented)', '+++ doc.md:4 (printed)', '@@ -2,7 +2,7 @@', ' 2', ' 3', ' 4', '-5', '+five', ' 6', ' 7', ' 8'].join('\n'));
  });

  it('makes separate hunks of distant changes and counts added and removed lines', () => {
    const a = ['x', ...Array.from({ length: 10 }, (_, i) => `${i}`), 'y'];
    const b = [...Array.from({ length: 10 }, (_, i) => `${i}`), 'y', 'z'];
    expect(unifiedDiff(a, b, labels, 1).split('\n').filter((l) => l.startsWith('@@'))).toEqual(['@@ -1,2 +1,1 @@', '@@ -12,1 +11,2 @@']);
  });
});
