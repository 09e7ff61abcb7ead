/**
 * The terminal rendering of a signal package (`tradeseal signals latest`): the day, its regime and when it was
 * published, so a reader of the terminal knows from when the regime could be acted on.
 */
import { describe, expect, it } from 'vitest';
import { renderSignalPackage } from '../../src/cli/signals-view.js';

const pkg = (availableAt: string | null): Record<string, unknown> => ({
  date: '2025-11-26',
  available_at: availableAt,
  regime: {
    most_likely: 'recovery',
    probabilities: { expansion: 0.1, recovery: 0.9, tightening: 0, risk_off: 0 },
    confidence: 'HIGH',
    persistence_days: 7,
    expected_duration_remaining_days: 55,
  },
  net_liquidity: { level_bn: 5611.04, change_4w_bn: -56.41, zscore: -2.151, trend: 'CONTRACTING' },
  pca_factors: { pc1: -0.3471, pc2: -1.3972, pc3: 0.9351, pc4: -0.3162 },
  model_metadata: { hmm_fit_date: '2025-11-03', data_vintage: '2025-11-26T23:59:59.000Z' },
});

describe('renderSignalPackage', () => {
  it('names the day, its regime and the instant it was published', () => {
    expect(renderSignalPackage(pkg('2025-11-28T11:30:00.000Z')).split('\n')[0]).toBe(
      '2025-11-26: recovery (confidence HIGH, 7 days so far, about 55 more expected), published 2025-11-28T11:30:00.000Z',
    );
  });

  it('says nothing of publication for a day published before release-time data', () => {
    expect(renderSignalPackage(pkg(null)).split('\n')[0]).toBe('2025-11-26: recovery (confidence HIGH, 7 days so far, about 55 more expected)');
  });
});
