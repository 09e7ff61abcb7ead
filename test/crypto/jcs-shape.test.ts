/**
 * canonicalWriter (src/core/crypto/jcs-shape.ts) gives exactly canonicalJson's text, or its error, for values of its
 * shape and for values that are not (a member missing or extra, a nested value of another kind, a value that is
 * not plain data): on random values built to the shape of a sealed trace, then damaged at random.
 */
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/core/crypto/jcs.js';
import { canonicalWriter, type Shape } from '../../src/core/crypto/jcs-shape.js';
import { outcome, random } from '../helpers/jcs-outcomes.js';

const AWKWARD = ['', 'a', 'é', '\u20ac', '\ud83d\ude00', '\ufb33', '"', '\\', '\n', '\u0000', '\u2028', '10', 'aB'];
const NUMBERS = [0, -0, 1, -1, 0.1, 1e21, 1e-7, 123.456, 2 ** 53, 5e-324, 1.7976931348623157e308, 333333333.3333333];
/** Values that are not plain data, or not the kind a member holds. */
const ODD: unknown[] = [undefined, NaN, Infinity, 'lone \ud800', new Date(0), [1, undefined], { toJSON: () => 'x' }, [3, [4, { z: 1, a: 2 }]], 7n, () => 1];

/** The members of a sealed trace (src/engine/trace/document.ts), with member names that sort awkwardly added. */
const SHAPE: Shape = {
  trace_id: null,
  version: null,
  bitemporal: { valid_time: null, txn_time: null, time_source: null },
  mta: {
    regime_id: null,
    regime_label: null,
    risk_level: null,
    max_notional_scale: null,
    allowed_sides: null,
    version: null,
    hash: null,
    signature_valid: null,
  },
  agent: { agent_id: null, feature_schema_id: null, latent_fingerprint: null },
  heartbeat: { sequence_id: null, signature_valid: null, drift_ms: null },
  policy: { id: null, version: null, hash: null, result: null },
  regulatory: { commitment: null },
  awkward: { '': null, é: null, '\ud83d\ude00': null, '\ufb33': null, A: null, a: null, '10': null, '2': null },
  empty: {},
};

function primitive(next: () => number): unknown {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)] as T;
  switch (Math.floor(next() * 5)) {
    case 0:
      return pick(AWKWARD) + pick(AWKWARD);
    case 1:
      return pick(NUMBERS);
    case 2:
      return next() < 0.5;
    case 3:
      return null;
    default:
      return Array.from({ length: Math.floor(next() * 3) }, () => pick(AWKWARD));
  }
}

function build(shape: Shape, next: () => number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  // Members in a random order: the text must not depend on it.
  for (const name of Object.keys(shape).sort(() => next() - 0.5)) {
    const child = shape[name];
    out[name] = child ? (next() < 0.1 ? null : build(child, next)) : primitive(next);
  }
  return out;
}

/** One damage somewhere in the value: a member dropped or added, a nested object replaced, an odd value. */
function damage(value: Record<string, unknown>, next: () => number): void {
  const names = Object.keys(value);
  const name = names[Math.floor(next() * names.length)] as string;
  const member = value[name];
  if (member && typeof member === 'object' && !Array.isArray(member) && next() < 0.6) {
    damage(member as Record<string, unknown>, next);
    return;
  }
  const kind = Math.floor(next() * 4);
  if (kind === 0) delete value[name];
  else if (kind === 1) value[`extra${name}`] = 1;
  else if (kind === 2) value[name] = 'a string where an object may be';
  else value[name] = ODD[Math.floor(next() * ODD.length)];
}

describe('canonicalWriter', () => {
  const write = canonicalWriter(SHAPE);

  it("gives canonicalJson's text for 2,000 random values of its shape", () => {
    const next = random(11);
    const differ: string[] = [];
    for (let i = 0; i < 2000; i++) {
      const value = build(SHAPE, next);
      if (write(value) !== canonicalJson(value)) differ.push(JSON.stringify(value));
    }
    expect(differ).toEqual([]);
  });

  it("gives canonicalJson's text or error for 2,000 values not of its shape", () => {
    const next = random(12);
    let errors = 0;
    for (let i = 0; i < 2000; i++) {
      const value = build(SHAPE, next);
      damage(value, next);
      const expected = outcome(canonicalJson, value);
      if ('error' in expected) errors++;
      expect(outcome(write, value)).toEqual(expected);
    }
    // Both kinds of outcome were compared.
    expect(errors).toBeGreaterThan(100);
    expect(errors).toBeLessThan(1900);
  });

  it('writes an object of another prototype, or with toJSON, as canonicalJson does', () => {
    const small = canonicalWriter({ b: null, a: null });
    class Pair {
      constructor(
        readonly b: number,
        readonly a: number,
      ) {}
    }
    for (const value of [new Pair(1, 2), { a: 1, b: 2, toJSON: () => ({ z: 1 }) }, Object.assign(Object.create(null) as object, { b: 1, a: 2 }), [1, 2]]) {
      expect(outcome(small, value)).toEqual(outcome(canonicalJson, value));
    }
    expect(small({ b: 1, a: 'x' })).toBe('{"a":"x","b":1}');
  });
});
