/** Helpers of the canonical JSON tests: what a serialiser gives (its text or its error), and a replayable generator. */

/** What `f` gives for `value`: its text, or its error's name and message. */
export function outcome(f: (v: never) => string, value: unknown): { text: string } | { error: string } {
  try {
    return { text: f(value as never) };
  } catch (error) {
    return { error: `${(error as Error).name}: ${(error as Error).message}` };
  }
}

/** A small deterministic generator (mulberry32), so that a failure can be replayed. */
export function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
