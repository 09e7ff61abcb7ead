/**
 * The PCA stage against R's published `prcomp(USArrests, scale = TRUE)` (ISLR 2013, §10.4; fixture README),
 * and the sign rule that keeps factors from flipping between refits.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fitPca, project } from '../../pipeline/model/pca.js';

const lines = readFileSync(new URL('./fixtures/USArrests.csv', import.meta.url), 'utf8')
  .trim()
  .split('\n')
  .slice(1);
const rows = lines.map((l) => l.split(',').slice(1).map(Number));
const inputs = ['Murder', 'Assault', 'UrbanPop', 'Rape'];

// R's rotation, column by column (signs as R prints them).
const R_ROTATION = [
  [-0.5358995, -0.5831836, -0.2781909, -0.5434321],
  [0.4181809, 0.1879856, -0.8728062, -0.1673186],
  [-0.3412327, -0.2681484, -0.3780158, 0.8177779],
  [0.6492278, -0.74340748, 0.13387773, 0.08902432],
];
const R_SDEV = [1.5748783, 0.9948694, 0.5971291, 0.4164494];

describe('fitPca on USArrests', () => {
  const fit = fitPca(rows, inputs, 'Murder');

  it("has R's loadings up to the sign of each component", () => {
    for (let c = 0; c < 4; c++) {
      const sign = Math.sign(fit.components[c]![0]!) === Math.sign(R_ROTATION[c]![0]!) ? 1 : -1;
      fit.components[c]!.forEach((v, j) => expect(v * sign).toBeCloseTo(R_ROTATION[c]![j]!, 6));
    }
  });

  it("explains R's proportions of variance", () => {
    const total = R_SDEV.reduce((a, s) => a + s * s, 0);
    fit.variance_explained_pct.forEach((v, c) => expect(v).toBeCloseTo((R_SDEV[c]! ** 2 / total) * 100, 4));
    expect(fit.variance_explained_pct[0]).toBeCloseTo(62.006, 2);
  });

  it('applies the sign rule: pc1 positive on the anchor, other components positive on their largest loading', () => {
    expect(fit.components[0]![0]).toBeGreaterThan(0);
    for (let c = 1; c < 4; c++) {
      const comp = fit.components[c]!;
      const largest = comp.reduce((best, v) => (Math.abs(v) > Math.abs(best) ? v : best), 0);
      expect(largest).toBeGreaterThan(0);
    }
  });

  it("projects a row to scores whose variance across the rows is R's sdev squared", () => {
    const scores = rows.map((r) => project(fit, r));
    for (let c = 0; c < 4; c++) {
      const xs = scores.map((s) => s[c]!);
      const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
      const sd = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (xs.length - 1));
      expect(mean).toBeCloseTo(0, 10);
      expect(sd).toBeCloseTo(R_SDEV[c]!, 6);
    }
  });

  it('does not flip the sign when the rows are given in another order', () => {
    const again = fitPca([...rows].reverse(), inputs, 'Murder');
    again.components.forEach((comp, c) => comp.forEach((v, j) => expect(v).toBeCloseTo(fit.components[c]![j]!, 10)));
  });
});
