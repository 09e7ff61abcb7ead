/**
 * "Did you mean": the candidates nearest to what was typed, for mistyped commands, flags and time zones.
 *
 * `closest` ranks by Levenshtein distance alone (fast-levenshtein), which suits names of one piece (a time
 * zone). `suggestions` is for names made of words (`engine orphans`, `full-ids`): a typo of a name rarely
 * changes only letters, it drops a plural, stops early or leaves out a word, and edit distance ranks those
 * badly (`engine orphan` is as near to `engine erase` as a slip of a few letters would be). So it ranks by the
 * kind of match first, and offers only the best kind found: a candidate that starts with what was typed
 * (`engine orphan` → `engine orphans`); one whose words start with the typed words, in order (`traces list`
 * → `engine traces list`, `engine list` → `engine agents list`); one that contains it; and only when none
 * of these exists, the nearest by edit distance. Within a kind, candidates of the typed name's own group (its
 * first word: the topic of a command) come first, then the nearest, then alphabetical order; near misses
 * count only when no further than one edit beyond the nearest.
 */
import levenshtein from 'fast-levenshtein';

/** The candidates nearest to `typed`, best first; at most `max`, none too far off. Case is ignored. */
export function closest(typed: string, candidates: readonly string[], max = 3): string[] {
  const t = typed.toLowerCase();
  const scored = candidates.map((c) => ({ c, d: levenshtein.get(t, c.toLowerCase()) }));
  scored.sort((a, b) => a.d - b.d || a.c.localeCompare(b.c));
  const limit = editLimit(typed);
  return scored
    .filter((s) => s.d <= limit)
    .slice(0, max)
    .map((s) => s.c);
}

/**
 * How far off a candidate may be and still be offered: a third of what was typed (rounded up), so that a short
 * word is offered only what differs from it by a slip (`dmo` → `demo`), not a word it merely shares a letter with
 * (`foo` is not `demo`, 3 edits away).
 */
const editLimit = (typed: string): number => Math.max(1, Math.ceil(typed.length / 3));

/** The kinds of match, best first. */
const Kind = { Prefix: 0, WordPrefixes: 1, Contains: 2, Near: 3 } as const;

/** Whether each typed word starts some word of `words`, in order (`trace list` in `engine traces list`). */
function wordPrefixes(typed: readonly string[], words: readonly string[]): boolean {
  let at = 0;
  for (const t of typed) {
    while (at < words.length && !words[at]!.startsWith(t)) at++;
    if (at === words.length) return false;
    at++;
  }
  return true;
}

/**
 * The candidates a user most likely meant by `typed`, best first, at most `max` (see the module comment).
 * `separator` splits names into words: a space for command ids, `-` for flag names.
 */
export function suggestions(typed: string, candidates: readonly string[], options: { separator: string; max?: number }): string[] {
  const t = typed.toLowerCase().trim();
  if (t === '') return [];
  const typedWords = t.split(options.separator).filter((w) => w !== '');
  const group = typedWords.length > 1 ? typedWords[0] : undefined;
  const limit = editLimit(t);
  const scored = candidates
    .map((c) => {
      const lower = c.toLowerCase();
      const words = lower.split(options.separator);
      const kind: number = lower.startsWith(t)
        ? Kind.Prefix
        : wordPrefixes(typedWords, words)
          ? Kind.WordPrefixes
          : lower.includes(t)
            ? Kind.Contains
            : Kind.Near;
      return { c, kind, sameGroup: group !== undefined && words[0] === group, d: levenshtein.get(t, lower) };
    })
    .filter((s) => s.kind !== Kind.Near || s.d <= limit);
  const best = Math.min(...scored.map((s) => s.kind));
  // Among near misses, those as near as the nearest or one edit further: `limt` is `limit`, not also `wide`.
  const nearest = Math.min(...scored.map((s) => s.d));
  return scored
    .filter((s) => s.kind === best && (best !== Kind.Near || s.d <= nearest + 1))
    .sort((a, b) => Number(b.sameGroup) - Number(a.sameGroup) || a.d - b.d || a.c.localeCompare(b.c))
    .slice(0, options.max ?? 3)
    .map((s) => s.c);
}
