/**
 * "Did you mean": the candidates nearest to what was typed, by Levenshtein distance (fast-levenshtein),
 * for mistyped commands and time zones alike.
 */
import levenshtein from 'fast-levenshtein';

/** The candidates nearest to `typed`, best first; at most `max`, none too far off. Case is ignored. */
export function closest(typed: string, candidates: readonly string[], max = 3): string[] {
  const t = typed.toLowerCase();
  const scored = candidates.map((c) => ({ c, d: levenshtein.get(t, c.toLowerCase()) }));
  scored.sort((a, b) => a.d - b.d || a.c.localeCompare(b.c));
  const limit = Math.max(3, Math.ceil(typed.length / 3));
  return scored.filter((s) => s.d <= limit).slice(0, max).map((s) => s.c);
}
