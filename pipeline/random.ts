/**
 * A small seeded pseudo-random number generator for the pipeline: reproducible restarts, initialisations
 * and synthetic test data. `Math.random` cannot be seeded, and the regime model must be deterministic for a
 * given seed (docs/decisions/0030-regime-model.md).
 *
 * Generator: xoshiro128** 1.1 (D. Blackman and S. Vigna, "Scrambled linear pseudorandom number generators",
 * ACM TOMS 47(4), 2021; reference C code https://prng.di.unimi.it/xoshiro128starstar.c). 128 bits of state,
 * period 2^128 − 1, passes BigCrush; 32-bit integer arithmetic only, which JavaScript does exactly with
 * `Math.imul` and `>>> 0`.
 *
 * Seeding: the authors advise against seeding the state directly with a small integer (a mostly-zero state
 * starts in a poor region), so the four state words are drawn from SplitMix32 (the 32-bit variant of
 * SplitMix64, Steele, Lea and Flood, OOPSLA 2014, with the MurmurHash3 `fmix32` finaliser) run from the seed.
 *
 * Doubles: `uniform()` builds a 53-bit fraction from two outputs (the top 27 and 26 bits), the standard
 * conversion of the reference page, so every double k / 2^53 in [0, 1) is reachable.
 * Normals: Box–Muller (Box and Muller, Ann. Math. Statist. 29, 1958); both variates of a pair are used.
 */

const TWO_POW_26 = 67108864;
const TWO_POW_53 = 9007199254740992;

/** A seeded stream of numbers. Not for cryptography. */
export interface Rng {
  /** The next raw 32-bit output of xoshiro128**, as an unsigned integer. */
  nextUint32(): number;
  /** A double uniform on [0, 1). */
  uniform(): number;
  /** A standard normal variate N(0, 1). */
  normal(): number;
  /** An integer uniform on 0 … n − 1 (n ≥ 1), without modulo bias. */
  int(n: number): number;
}

/** SplitMix32 step: returns [output, next state]. */
function splitMix32(state: number): [number, number] {
  const next = (state + 0x9e3779b9) >>> 0;
  let z = next;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
  z = (z ^ (z >>> 16)) >>> 0;
  return [z, next];
}

/** The four xoshiro128** state words that `createRng(seed)` starts from. */
export function seedState(seed: number): Uint32Array {
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
    throw new RangeError(`seed: expected an integer in [0, 2^32 − 1], got ${seed}`);
  }
  const state = new Uint32Array(4);
  let s = seed >>> 0;
  for (let i = 0; i < 4; i++) {
    const [out, next] = splitMix32(s);
    state[i] = out;
    s = next;
  }
  return state;
}

/**
 * A generator from an explicit xoshiro128** state (four 32-bit words, not all zero). Exposed so that the
 * raw outputs can be checked against the reference algorithm; use `createRng(seed)` otherwise.
 */
export function rngFromState(initial: ArrayLike<number>): Rng {
  if (initial.length !== 4) throw new RangeError(`state: expected 4 words, got ${initial.length}`);
  let s0 = initial[0]! >>> 0;
  let s1 = initial[1]! >>> 0;
  let s2 = initial[2]! >>> 0;
  let s3 = initial[3]! >>> 0;
  if ((s0 | s1 | s2 | s3) === 0) throw new RangeError('state: must not be all zero (xoshiro would output zeros forever)');
  let spareNormal: number | undefined;

  const nextUint32 = (): number => {
    // result = rotl(s1 * 5, 7) * 9, then the xorshift/rotate state update of the reference code.
    const m = Math.imul(s1, 5);
    const result = Math.imul((m << 7) | (m >>> 25), 9) >>> 0;
    const t = (s1 << 9) >>> 0;
    s2 = (s2 ^ s0) >>> 0;
    s3 = (s3 ^ s1) >>> 0;
    s1 = (s1 ^ s2) >>> 0;
    s0 = (s0 ^ s3) >>> 0;
    s2 = (s2 ^ t) >>> 0;
    s3 = ((s3 << 11) | (s3 >>> 21)) >>> 0;
    return result;
  };

  const uniform = (): number => {
    const hi = nextUint32() >>> 5; // 27 bits
    const lo = nextUint32() >>> 6; // 26 bits
    return (hi * TWO_POW_26 + lo) / TWO_POW_53;
  };

  const normal = (): number => {
    if (spareNormal !== undefined) {
      const z = spareNormal;
      spareNormal = undefined;
      return z;
    }
    // 1 − u is in (0, 1], so the logarithm is finite.
    const radius = Math.sqrt(-2 * Math.log(1 - uniform()));
    const angle = 2 * Math.PI * uniform();
    spareNormal = radius * Math.sin(angle);
    return radius * Math.cos(angle);
  };

  const int = (n: number): number => {
    if (!Number.isInteger(n) || n < 1 || n > 0x100000000) throw new RangeError(`n: expected an integer in [1, 2^32], got ${n}`);
    // Rejection sampling on the top of the 32-bit range removes the modulo bias.
    const limit = 0x100000000 - (0x100000000 % n);
    for (;;) {
      const x = nextUint32();
      if (x < limit) return x % n;
    }
  };

  return { nextUint32, uniform, normal, int };
}

/** A generator seeded from a 32-bit unsigned integer; the same seed gives the same stream everywhere. */
export function createRng(seed: number): Rng {
  return rngFromState(seedState(seed));
}

/**
 * A seed for an independent sub-stream (restart r of a fit, say), derived from a parent seed and an index by
 * SplitMix32 mixing, so that sub-streams do not overlap in the obvious way `seed + r` streams would share
 * state words.
 */
export function deriveSeed(seed: number, index: number): number {
  if (!Number.isInteger(index) || index < 0) throw new RangeError(`index: expected a non-negative integer, got ${index}`);
  const [a] = splitMix32((seed >>> 0) ^ Math.imul(index + 1, 0x27d4eb2d));
  const [b] = splitMix32(a ^ index);
  return b;
}
