/**
 * The duplicate-member scanner (src/http/duplicate-keys.ts), table-driven and cross-checked against a second
 * implementation: jsonc-parser's visitor (Microsoft's JSON scanner, as used by VS Code), on generated
 * documents with and without duplicated names, escapes, nesting and arrays.
 */
import { visit } from 'jsonc-parser';
import { describe, expect, it } from 'vitest';
import { firstDuplicateKey } from '../../src/http/duplicate-keys.js';

/** Whether some object of `text` repeats a member name, by jsonc-parser. */
function hasDuplicateByJsonc(text: string): boolean {
  const stack: Array<Set<string>> = [];
  let found = false;
  visit(
    text,
    {
      onObjectBegin: () => {
        stack.push(new Set());
      },
      onObjectEnd: () => {
        stack.pop();
      },
      onObjectProperty: (name) => {
        const names = stack[stack.length - 1] as Set<string>;
        if (names.has(name)) found = true;
        names.add(name);
      },
    },
    { disallowComments: true, allowTrailingComma: false },
  );
  return found;
}

describe('firstDuplicateKey', () => {
  it.each([
    ['{"quantity": 1, "quantity": 7}', 'quantity'],
    ['{"a": 1, "b": {"x": 1, "y": 2, "x": 3}}', 'b.x'],
    ['{"legs": [{"q": 1}, {"q": 2, "q": 3}]}', 'legs[1].q'],
    ['{"a": "x", "\\u0061": "y"}', 'a'],
    ['[{"k": 1}, {"k": 1, "k": 2}]', '[1].k'],
    ['{"s": "a \\"quoted\\", name", "s": 1}', 's'],
  ])('%s → %s', (text, path) => {
    expect(firstDuplicateKey(text)).toBe(path);
  });

  it.each([
    '{"quantity": 1, "notional": 7}',
    '{"a": {"x": 1}, "b": {"x": 1}}',
    '[{"k": 1}, {"k": 2}]',
    '{"text": "\\"k\\": 1, \\"k\\": 2", "k": 3}',
    '{"a\\\\": 1, "a": 2}',
    '"just a string"',
    '[1, 2, {"x": [3, {"x": 4}]}]',
    '{}',
  ])('%s has none', (text) => {
    expect(firstDuplicateKey(text)).toBeNull();
  });

  it('agrees with jsonc-parser on 2,000 generated documents', () => {
    let seed = 42;
    const rand = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const names = ['a', 'b', 'q', 'a\\u0062', 'x\\"y', '\\u0061'];
    const value = (depth: number): string => {
      const r = rand();
      if (depth > 3 || r < 0.3) return rand() < 0.5 ? String(Math.floor(rand() * 100)) : `"${names[Math.floor(rand() * names.length)]}"`;
      if (r < 0.5) return `[${Array.from({ length: Math.floor(rand() * 4) }, () => value(depth + 1)).join(', ')}]`;
      const members = Array.from({ length: Math.floor(rand() * 4) }, () => `"${names[Math.floor(rand() * names.length)]}": ${value(depth + 1)}`);
      return `{${members.join(', ')}}`;
    };
    let duplicates = 0;
    for (let i = 0; i < 2000; i++) {
      const text = value(0);
      JSON.parse(text);
      const expected = hasDuplicateByJsonc(text);
      expect(firstDuplicateKey(text) !== null, text).toBe(expected);
      if (expected) duplicates++;
    }
    expect(duplicates).toBeGreaterThan(100);
  });
});
