/**
 * Prose lines fitted to a terminal's width: a line wider than the width is broken at spaces, its
 * continuation lines indented under its text (past any leading spaces and a `✓ `/`✗ `/`· `/`- ` mark), and
 * only a word longer than a whole line is broken inside. Lines that fit (every line of a fitted table) are
 * left as they are; with no width (a pipe, a file) nothing changes, so a script reads each line whole.
 */
import stringWidth from 'string-width';

const MARK = /^(\s*(?:[✓✗·-] )?)/;

/** Splits `word` into pieces no wider than `width`. */
function pieces(word: string, width: number): string[] {
  const out: string[] = [];
  let piece = '';
  for (const ch of word) {
    if (stringWidth(piece + ch) > width && piece !== '') {
      out.push(piece);
      piece = '';
    }
    piece += ch;
  }
  return piece === '' ? out : [...out, piece];
}

export function wrapLine(line: string, width: number): string[] {
  if (stringWidth(line) <= width) return [line];
  const lead = MARK.exec(line)![1]!;
  // Continuation lines hang under the text; a mark wider than half the line would leave no room.
  const indent = ' '.repeat(stringWidth(lead) <= width / 2 ? stringWidth(lead) : 0);
  const words = line.slice(lead.length).split(' ');
  const lines: string[] = [];
  let current = lead;
  let fresh = true;
  const room = (): number => width - stringWidth(current);
  for (const word of words) {
    const sep = fresh ? '' : ' ';
    if (stringWidth(sep + word) <= room()) {
      current += sep + word;
      fresh = false;
      continue;
    }
    if (!fresh) {
      lines.push(current);
      current = indent;
    }
    const parts = pieces(word, width - stringWidth(indent));
    for (const part of parts.slice(0, -1)) {
      lines.push(current + part);
      current = indent;
    }
    current += parts.at(-1) ?? '';
    fresh = false;
  }
  lines.push(current);
  return lines.map((l) => l.trimEnd());
}

/** Every line of `text` fitted to `width`; unchanged when there is no width. */
export function wrapText(text: string, width: number | null | undefined): string {
  if (!width) return text;
  return text
    .split('\n')
    .flatMap((line) => wrapLine(line, width))
    .join('\n');
}
