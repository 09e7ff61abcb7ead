/** What the terminal view takes from one ink input event: the keys a terminal sent, one by one. */
import type { Key } from 'ink';
import { describe, expect, it } from 'vitest';
import { keypresses } from '../../src/cli/attention/keys.js';

const none: Key = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
  super: false,
  hyper: false,
  capsLock: false,
  numLock: false,
};
const flags = (k: Key): string[] =>
  Object.entries(k)
    .filter(([, v]) => v === true)
    .map(([name]) => name);

describe('keypresses', () => {
  it.each([
    ['a named key stays one key', '\u001b[B', { ...none, downArrow: true }, [['\u001b[B', ['downArrow']]]],
    ['one character stays one key', 'v', none, [['v', []]]],
    ['Backspace alone keeps its flag', '\u007f', { ...none, backspace: true }, [['\u007f', ['backspace']]]],
    [
      'a burst of Backspaces is that many Backspaces',
      '\u007f\u007f\u007f',
      none,
      [
        ['\u007f', ['backspace']],
        ['\u007f', ['backspace']],
        ['\u007f', ['backspace']],
      ],
    ],
    [
      'text and Enter in one write: each letter, then Enter',
      'ab\r',
      none,
      [
        ['a', []],
        ['b', []],
        ['\r', ['return']],
      ],
    ],
    [
      'two spaces are two keys',
      '  ',
      none,
      [
        [' ', []],
        [' ', []],
      ],
    ],
    [
      'a tab in a burst is Tab',
      'x\t',
      none,
      [
        ['x', []],
        ['\t', ['tab']],
      ],
    ],
    [
      'an escape sequence ink passed whole is not taken apart',
      '\u001b\u001b[A',
      { ...none, meta: true, upArrow: true },
      [['\u001b\u001b[A', ['upArrow', 'meta']]],
    ],
    [
      'a character outside the BMP is one key',
      'a😀',
      none,
      [
        ['a', []],
        ['😀', []],
      ],
    ],
  ] as const)('%s', (_, input, key, expected) => {
    expect(keypresses(input, key).map((k) => [k.input, flags(k.key)])).toEqual(expected);
  });
});
