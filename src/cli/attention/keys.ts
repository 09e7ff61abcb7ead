/**
 * Keys as typed, from what ink hands a view. Ink splits escape sequences (arrows, Esc) into events of their
 * own, but passes a run of plain characters that arrived together as one event: a burst of Backspaces is
 * "\x7f\x7f\x7f" with no `backspace` flag, "  " is two spaces, "abc\r" a word and Enter. A view that read
 * such an event as one key would drop keys, or put invisible characters in a filter. `keypresses` turns an
 * event back into the keys a terminal sent, one by one, so that a burst does what the same keys typed slowly do.
 */
import type { Key } from 'ink';

export interface Keypress {
  input: string;
  key: Key;
}

const NO_KEY: Key = {
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

/** What one character of a run is, as ink would have named it alone. */
function single(ch: string): Keypress {
  if (ch === '\r' || ch === '\n') return { input: ch, key: { ...NO_KEY, return: true } };
  if (ch === '\x7f' || ch === '\b') return { input: ch, key: { ...NO_KEY, backspace: true } };
  if (ch === '\t') return { input: ch, key: { ...NO_KEY, tab: true } };
  return { input: ch, key: NO_KEY };
}

/**
 * The keys of one ink input event: the event itself when it is one key (a named key, a control or escape
 * sequence, a single character), else each of its characters as a key of its own.
 */
export function keypresses(input: string, key: Key): Keypress[] {
  const named =
    key.upArrow ||
    key.downArrow ||
    key.leftArrow ||
    key.rightArrow ||
    key.pageDown ||
    key.pageUp ||
    key.home ||
    key.end ||
    key.escape ||
    key.ctrl ||
    key.meta ||
    key.tab ||
    key.return ||
    key.backspace ||
    key.delete;
  const chars = [...input];
  if (named || chars.length <= 1 || input.startsWith('\u001b')) return [{ input, key }];
  return chars.map(single);
}
