/**
 * Where the ARMA(1,1) fit searches (fit.ts): the unconstrained plane (a, b) with φ = tanh a, θ = tanh b, and
 * the points its searches start from.
 *
 * The map: every (a, b) is a stationary and invertible model, so the optimiser needs no constraints (tanh is
 * the order-one case of the reparametrisations of R. H. Jones, "Maximum likelihood fitting of ARMA models to
 * time series with missing observations", Technometrics 22, 1980, and J. F. Monahan, "A note on enforcing
 * stationarity in autoregressive-moving average models", Biometrika 71, 1984). |a| and |b| are capped at
 * ATANH_CAP, so |φ|, |θ| ≤ 1 − 2.3e−7: the boundary |θ| = 1 is approached to that distance.
 *
 * The starts: the exact likelihood of an ARMA(1,1) can have several local maxima, a maximum on the boundary
 * θ = ±1 (the "pile-up" of R. A. Davis and W. T. M. Dunsmuir, "Maximum likelihood estimation for MA(1)
 * processes with a root on or near the unit circle", Econometric Theory 12, 1996), and a ridge φ = −θ on which
 * the model is white noise whatever φ is. So the objective is evaluated on a grid of (φ, θ), and the searches
 * start from the grid's highest local maxima (points no worse than their up to eight neighbours: one start
 * per basin) and from the best grid point next to each boundary θ = ±1, where a maximum on the boundary sits
 * in a ridge too narrow for the grid to show as a local maximum. On 2,600 simulated series of 10 to 800
 * values (white noise, near unit roots, with and without a mean), the fit was at or above the best point of a
 * 201 × 201 grid over the whole region every time but once: white noise, where the likelihood along φ ≈ −θ had
 * two maxima 0.008 apart and the search took the lower one.
 */

/** tanh(8) = 1 − 2.3e−7: the closest the search comes to |φ| = 1 or |θ| = 1. */
export const ATANH_CAP = 8;

/**
 * The grid: φ in steps of 0.1, θ in steps of 0.1 between them (odd multiples of 0.05), so no grid point is
 * on the white-noise line φ = −θ (a plateau of equal values there would make each of its points a "local
 * maximum" and crowd out the real ones); and both denser towards ±1, where the likelihood changes fastest
 * and a maximum near the MA boundary can be a ridge narrower than 0.05 in θ.
 */
const symmetric = (positive: number[], zero: number[] = []): number[] => [...positive.map((v) => -v).reverse(), ...zero, ...positive];
const GRID_PHI = symmetric([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 0.999], [0]);
const GRID_THETA = symmetric([0.05, 0.15, 0.25, 0.35, 0.45, 0.55, 0.65, 0.75, 0.85, 0.93, 0.965, 0.985, 0.995, 0.999, 0.9999]);
/** Searches from at most this many local maxima (plus the two boundary starts). */
const MAX_LOCAL_STARTS = 8;

/** The coefficient of a search coordinate: tanh of it, capped. */
export const toCoefficient = (a: number): number => Math.tanh(Math.max(-ATANH_CAP, Math.min(ATANH_CAP, a)));

export interface Start {
  /** (a, b) = (atanh φ, atanh θ). */
  ab: Float64Array;
  /** The objective there. */
  f: number;
}

/** The starting points for minimising `objective` over (a, b), best first, and the evaluations it took. */
export function startingPoints(objective: (ab: Float64Array) => number): { starts: Start[]; evaluations: number } {
  const cols = GRID_THETA.length;
  const grid: Start[] = GRID_PHI.flatMap((phi) =>
    GRID_THETA.map((theta) => {
      const ab = Float64Array.of(Math.atanh(phi), Math.atanh(theta));
      return { ab, f: objective(ab) };
    }),
  );
  const at = (i: number, j: number): Start | undefined => (i >= 0 && i < GRID_PHI.length && j >= 0 && j < cols ? grid[i * cols + j] : undefined);
  const isLocalMaximum = (k: number): boolean => {
    const [i, j] = [Math.floor(k / cols), k % cols];
    for (let di = -1; di <= 1; di++) {
      for (let dj = -1; dj <= 1; dj++) {
        const neighbour = di === 0 && dj === 0 ? undefined : at(i + di, j + dj);
        if (neighbour && neighbour.f < grid[k]!.f) return false;
      }
    }
    return true;
  };
  const byValue = (p: Start, q: Start): number => p.f - q.f;
  const bestNextToBoundary = (j: number): Start => GRID_PHI.map((_, i) => at(i, j)!).sort(byValue)[0]!;

  const starts = grid
    .filter((_, k) => isLocalMaximum(k))
    .sort(byValue)
    .slice(0, MAX_LOCAL_STARTS);
  for (const edge of [bestNextToBoundary(0), bestNextToBoundary(cols - 1)]) if (!starts.includes(edge)) starts.push(edge);
  return { starts, evaluations: grid.length };
}
