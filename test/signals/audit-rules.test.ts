/** The documented rules of the audit decomposition (src/signals/audit.ts), table-driven, without a store. */
import { describe, expect, it } from 'vitest';
import { decompose, factorDescription, factorDirection, stressFlag, windowZ, type AuditInputs, type WindowDay } from '../../src/signals/audit.js';

describe('stressFlag: |z| below 2 normal, from 2 elevated, from 3 extreme', () => {
  it.each([
    [0, 'normal'],
    [1.999, 'normal'],
    [-1.999, 'normal'],
    [2, 'elevated'],
    [-2.5, 'elevated'],
    [2.999, 'elevated'],
    [3, 'extreme'],
    [-7, 'extreme'],
    [null, 'unavailable'],
  ] as const)('z %s → %s', (z, flag) => {
    expect(stressFlag(z)).toBe(flag);
  });
});

describe('windowZ: the last value against the whole window, sample standard deviation', () => {
  it.each([
    { values: [1, 2, 3, 4, 5], z: (5 - 3) / Math.sqrt(2.5) },
    { values: [1, null, 3, 5], z: (5 - 3) / 2 },
    { values: [2, 2, 2], z: 0 },
    { values: [7], z: 0 },
    { values: [1, 2, null], z: null },
  ])('$values → $z', ({ values, z }) => {
    const got = windowZ(values);
    if (z === null) expect(got).toBeNull();
    else expect(got).toBeCloseTo(z, 12);
  });
});

describe('factorDirection: neutral within ±0.5 SD; otherwise the stress orientation of the loadings decides', () => {
  const inputs = ['hy_spread_pct', 'vix', 'net_liq_zscore', 'mom_z_curve'];
  // 25% of 4 inputs: λ = 1, so the value is already in standard deviations.
  it.each([
    { name: 'stress factor up', loadings: [0.6, 0.5, -0.3, 0.1], value: 1.2, dir: 'bearish' },
    { name: 'stress factor down', loadings: [0.6, 0.5, -0.3, 0.1], value: -1.2, dir: 'bullish' },
    { name: 'inside the band', loadings: [0.6, 0.5, -0.3, 0.1], value: 0.49, dir: 'neutral' },
    { name: 'liquidity factor up (liquidity is not stress)', loadings: [0, 0, 0.9, 0.1], value: 2, dir: 'bullish' },
    { name: 'no stress orientation', loadings: [0, 0, 0, 1], value: 3, dir: 'neutral' },
  ])('$name → $dir', ({ loadings, value, dir }) => {
    expect(factorDirection(value, loadings, inputs, 25)).toBe(dir);
  });

  it("scales by the factor's own standard deviation: √(share × inputs)", () => {
    // 100% of 4 inputs: λ = 4, SD 2; a value of 0.9 is 0.45 SD (neutral), 1.1 is 0.55 SD.
    expect(factorDirection(0.9, [1, 0, 0, 0], inputs, 100)).toBe('neutral');
    expect(factorDirection(1.1, [1, 0, 0, 0], inputs, 100)).toBe('bearish');
  });
});

describe('factorDescription', () => {
  it('names the share and the three inputs with the largest |loading|, signed, largest first', () => {
    expect(factorDescription([0.1, -0.7, 0.3, 0.5], ['hy_spread_pct', 'vix', 'net_liq_zscore', 'mom_z_curve'], 41.234)).toBe(
      "keeps 41.2% of the standardized inputs' variance; loads most on volatility index (−0.70), 10Y-2Y curve momentum (+0.50), net liquidity z-score (+0.30)",
    );
  });
});

describe('decompose', () => {
  const day = (i: number, over: Partial<WindowDay> = {}): WindowDay => ({
    date: `2020-01-${String(i + 1).padStart(2, '0')}`,
    vix: 20 + i,
    hy_spread_pct: 4,
    curve_10y2y_pp: 0.5,
    dollar: null,
    net_liq_bn: 5000 + i,
    net_liq_zscore: 0,
    ...over,
  });
  const base: AuditInputs = {
    day: { date: '2020-01-25', regime: 'tightening', risk_score: 0.6, factors: [1, 1, 0, 0.2] },
    pca: {
      inputs: ['hy_spread_pct', 'vix', 'net_liq_zscore', 'curve_10y2y_pp'],
      means: [4, 20, 0, 0.5],
      sds: [1, 5, 1, 0.5],
      components: [
        [0.7, 0.7, 0, 0],
        [0, 0, 1, 0],
        [0, 0, 0, 1],
        [0.5, -0.5, 0, 0],
      ],
      variance_explained_pct: [40, 25, 15, 10],
    },
    transmat: [0.97, 0.01, 0.01, 0.01, 0.02, 0.95, 0.02, 0.01, 0.01, 0.03, 0.9, 0.06, 0, 0.02, 0.08, 0.9],
    window: Array.from({ length: 25 }, (_, i) => day(i)),
    liquidity: { trend: 'EXPANDING', level_bn: 5024, earlier: { date: '2019-12-20', level_bn: 4900 } },
  };

  it('assembles every field from its inputs', () => {
    const d = decompose(base, { generatedAt: new Date('2020-01-26T06:00:00Z'), agentCount: 4 });
    expect(d).toMatchObject({ generated_at: '2020-01-26T06:00:00.000Z', date: '2020-01-25', regime: 'tightening', risk_score: 0.6, agent_count: 4 });
    expect(d.factor_attribution.map((f) => [f.factor, f.value, f.direction])).toEqual([
      ['PC1', 1, 'bearish'],
      ['PC2', 1, 'bullish'],
      ['PC3', 0, 'neutral'],
      ['PC4', 0.2, 'neutral'],
    ]);
    expect(d.stress_indicators.map((s) => [s.name, s.value, s.flag])).toEqual([
      ['volatility_index', 44, 'normal'],
      ['high_yield_spread', 4, 'normal'],
      ['curve_10y_2y', 0.5, 'normal'],
      ['dollar_index', null, 'unavailable'],
      ['net_liquidity', 5024, 'normal'],
    ]);
    expect(d.stress_indicators[2]!.z_score).toBe(0);
    expect(d.liquidity).toEqual({ trend: 'expanding', latest_bn_usd: 5024, '30d_change_bn_usd': 124 });
    expect(d.transition_risk).toEqual({ expansion: 0.01, recovery: 0.03, tightening: 0.9, risk_off: 0.06 });
    // VIX: the last 20 days average 34.5, (34.5 − 20) / 5 = 2.9 SD from the fit's mean.
    expect(d.model_health.feature_mean_shift).toBeCloseTo(2.9, 12);
    expect(d.model_health).toMatchObject({ status: 'degraded', flags: ['feature_mean_shift'], pca_explained_variance: 90 });
    expect(d.model_health.regime_persistence).toBeCloseTo(0.93, 12);
  });

  it('flags low explained variance and low persistence; no earlier liquidity gives a null change', () => {
    const d = decompose(
      {
        ...base,
        pca: { ...base.pca, variance_explained_pct: [30, 10, 10, 5] },
        transmat: [0.8, 0.1, 0.05, 0.05, 0.1, 0.8, 0.05, 0.05, 0.05, 0.05, 0.8, 0.1, 0.05, 0.05, 0.1, 0.8],
        window: base.window.map((w) => ({ ...w, vix: 20 })),
        liquidity: { ...base.liquidity, earlier: null },
      },
      { generatedAt: new Date(0), agentCount: 3 },
    );
    expect(d.model_health).toMatchObject({ status: 'degraded', flags: ['low_explained_variance', 'low_regime_persistence'], pca_explained_variance: 55 });
    expect(d.liquidity['30d_change_bn_usd']).toBeNull();
  });
});
