/**
 * Nelder–Mead minimisation of a function of a few variables, without derivatives (J. A. Nelder and R. Mead,
 * "A simplex method for function minimization", Computer Journal 7(4), 1965, with the coefficients and the
 * order of operations of J. C. Lagarias, J. A. Reeds, M. H. Wright and P. E. Wright, "Convergence properties
 * of the Nelder–Mead simplex method in low dimensions", SIAM J. Optim. 9(1), 1998: reflection 1, expansion 2,
 * contraction ½, shrink ½). It stops as SciPy's `fmin` does: when every vertex is within `xTol` of the best
 * one in each coordinate and their values within `fTol` of the best value, or after `maxEvaluations`.
 *
 * Why our own: the ARMA(1,1) fit searches two variables (μ and σ² are concentrated out), where a simplex
 * search is robust and short. The npm registry's general optimisers do not fit the project: `fmin` (0.0.4)
 * and `numeric` (1.2.6) have had no release in years and ship no types, and `optimization-js` (1.5.0) lists
 * build tools (browserify, jsdoc, travis) as runtime dependencies.
 *
 * Deterministic: the same function and start give the same result bit for bit.
 */

export interface NelderMeadOptions {
  /** Edge of the initial simplex along each axis. */
  step: number;
  /** Stop when every vertex is within this of the best in every coordinate… */
  xTol: number;
  /** …and every vertex's value within this of the best value. */
  fTol: number;
  maxEvaluations: number;
}

export interface Minimum {
  x: Float64Array;
  f: number;
  evaluations: number;
  converged: boolean;
}

export function nelderMead(f: (x: Float64Array) => number, start: ArrayLike<number>, options: NelderMeadOptions): Minimum {
  const d = start.length;
  let evaluations = 0;
  const value = (x: Float64Array): number => {
    evaluations++;
    const v = f(x);
    return Number.isNaN(v) ? Infinity : v;
  };
  const simplex: Float64Array[] = [Float64Array.from(start)];
  for (let i = 0; i < d; i++) {
    const x = Float64Array.from(start);
    x[i] = x[i]! + options.step;
    simplex.push(x);
  }
  const values = simplex.map(value);
  const order = (): void => {
    const idx = simplex.map((_, i) => i).sort((a, b) => values[a]! - values[b]! || a - b);
    const xs = idx.map((i) => simplex[i]!);
    const fs = idx.map((i) => values[i]!);
    xs.forEach((x, i) => (simplex[i] = x));
    fs.forEach((v, i) => (values[i] = v));
  };
  /** c + t (c − w): the point at t along the ray from the worst vertex w through the centroid c. */
  const along = (c: Float64Array, w: Float64Array, t: number): Float64Array => c.map((ci, i) => ci + t * (ci - w[i]!));

  order();
  let converged = false;
  while (evaluations < options.maxEvaluations) {
    const best = simplex[0]!;
    let spread = 0;
    let fSpread = 0;
    for (let k = 1; k <= d; k++) {
      for (let i = 0; i < d; i++) spread = Math.max(spread, Math.abs(simplex[k]![i]! - best[i]!));
      fSpread = Math.max(fSpread, Math.abs(values[k]! - values[0]!));
    }
    if (spread <= options.xTol && fSpread <= options.fTol) {
      converged = true;
      break;
    }
    const worst = simplex[d]!;
    const centroid = new Float64Array(d);
    for (let k = 0; k < d; k++) for (let i = 0; i < d; i++) centroid[i] = centroid[i]! + simplex[k]![i]! / d;

    const reflected = along(centroid, worst, 1);
    const fr = value(reflected);
    if (fr < values[0]!) {
      const expanded = along(centroid, worst, 2);
      const fe = value(expanded);
      if (fe < fr) [simplex[d], values[d]] = [expanded, fe];
      else [simplex[d], values[d]] = [reflected, fr];
    } else if (fr < values[d - 1]!) {
      [simplex[d], values[d]] = [reflected, fr];
    } else {
      // Contract: outside when the reflection improved on the worst vertex, inside otherwise.
      const outside = fr < values[d]!;
      const contracted = along(centroid, worst, outside ? 0.5 : -0.5);
      const fc = value(contracted);
      if (fc < (outside ? fr : values[d]!)) [simplex[d], values[d]] = [contracted, fc];
      else {
        for (let k = 1; k <= d; k++) {
          simplex[k] = simplex[k]!.map((xi, i) => best[i]! + 0.5 * (xi - best[i]!));
          values[k] = value(simplex[k]!);
        }
      }
    }
    order();
  }
  return { x: Float64Array.from(simplex[0]!), f: values[0]!, evaluations, converged };
}
