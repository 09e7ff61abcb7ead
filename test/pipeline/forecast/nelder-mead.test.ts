/** The simplex search on textbook functions: it finds their minima to its tolerance, and deterministically. */
import { describe, expect, it } from 'vitest';
import { nelderMead } from '../../../pipeline/forecast/nelder-mead.js';

const OPTIONS = { step: 0.5, xTol: 1e-10, fTol: 1e-14, maxEvaluations: 5000 };

describe('nelderMead', () => {
  it("finds the minimum (1, 1) of Rosenbrock's function from (−1.2, 1)", () => {
    const rosenbrock = (x: Float64Array): number => 100 * (x[1]! - x[0]! ** 2) ** 2 + (1 - x[0]!) ** 2;
    const m = nelderMead(rosenbrock, [-1.2, 1], OPTIONS);
    expect(m.converged).toBe(true);
    expect(Math.abs(m.x[0]! - 1)).toBeLessThan(1e-8);
    expect(Math.abs(m.x[1]! - 1)).toBeLessThan(1e-8);
    expect(m.f).toBeLessThan(1e-16);
  });

  it('finds the minimum of a quadratic in three variables', () => {
    const q = (x: Float64Array): number => (x[0]! - 3) ** 2 + 2 * (x[1]! + 1) ** 2 + 0.5 * (x[2]! - 0.25) ** 2 + 0.3 * (x[0]! - 3) * (x[1]! + 1);
    const m = nelderMead(q, [0, 0, 0], OPTIONS);
    expect(m.converged).toBe(true);
    [3, -1, 0.25].forEach((v, i) => expect(Math.abs(m.x[i]! - v)).toBeLessThan(1e-8));
  });

  it('treats NaN as +∞ and stops at maxEvaluations', () => {
    const m = nelderMead((x) => (x[0]! < 0 ? Number.NaN : (x[0]! - 2) ** 2), [1], { ...OPTIONS, maxEvaluations: 1000 });
    expect(Math.abs(m.x[0]! - 2)).toBeLessThan(1e-8);
    const capped = nelderMead((x) => (x[0]! - 2) ** 2, [1], { ...OPTIONS, maxEvaluations: 5 });
    expect(capped.converged).toBe(false);
    expect(capped.evaluations).toBeLessThanOrEqual(6);
  });

  it('is deterministic', () => {
    const f = (x: Float64Array): number => Math.sin(3 * x[0]!) + (x[0]! - 0.5) ** 2 + (x[1]! + 0.2) ** 2;
    const a = nelderMead(f, [0.1, 0.1], OPTIONS);
    const b = nelderMead(f, [0.1, 0.1], OPTIONS);
    expect(Array.from(a.x)).toEqual(Array.from(b.x));
    expect(a.evaluations).toBe(b.evaluations);
  });
});
