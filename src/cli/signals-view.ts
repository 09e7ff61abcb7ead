/** Terminal rendering of signal packages (the `/v1/signals` shape). */
import { renderTable, type TableStyle } from './table.js';

interface Package {
  date: string;
  available_at?: string | null;
  regime: {
    most_likely: string;
    probabilities: Record<string, number>;
    confidence: string;
    persistence_days: number;
    expected_duration_remaining_days: number;
  };
  net_liquidity: { level_bn: number; change_4w_bn: number; zscore: number; trend: string };
  pca_factors: { pc1: number; pc2: number; pc3: number; pc4: number };
  model_metadata: { hmm_fit_date: string; data_vintage: string };
}

const f = (x: number, d = 4): string => x.toFixed(d);

export function renderSignalPackage(raw: Record<string, unknown>): string {
  const p = raw as unknown as Package;
  const r = p.regime;
  return [
    `${p.date}: ${r.most_likely} (confidence ${r.confidence}, ${r.persistence_days} days so far, about ${r.expected_duration_remaining_days} more expected)${p.available_at ? `, published ${p.available_at}` : ''}`,
    renderTable(
      ['expansion', 'recovery', 'tightening', 'risk_off'],
      [[f(r.probabilities.expansion!), f(r.probabilities.recovery!), f(r.probabilities.tightening!), f(r.probabilities.risk_off!)]],
    ),
    `net liquidity ${f(p.net_liquidity.level_bn, 1)} bn (${p.net_liquidity.trend}, 4-week change ${f(p.net_liquidity.change_4w_bn, 1)} bn, z ${f(p.net_liquidity.zscore, 2)})`,
    `factors pc1 ${f(p.pca_factors.pc1, 3)}, pc2 ${f(p.pca_factors.pc2, 3)}, pc3 ${f(p.pca_factors.pc3, 3)}, pc4 ${f(p.pca_factors.pc4, 3)}; model fitted ${p.model_metadata.hmm_fit_date}, data to ${p.model_metadata.data_vintage}`,
  ].join('\n');
}

export function renderPackages(raw: Array<Record<string, unknown>>, style: TableStyle = {}): string {
  const rows = raw as unknown as Package[];
  return renderTable(
    ['date', 'regime', 'confidence', 'expansion', 'recovery', 'tightening', 'risk_off', 'net_liq_bn', 'trend'],
    rows.map((p) => [
      p.date,
      p.regime.most_likely,
      p.regime.confidence,
      f(p.regime.probabilities.expansion!),
      f(p.regime.probabilities.recovery!),
      f(p.regime.probabilities.tightening!),
      f(p.regime.probabilities.risk_off!),
      f(p.net_liquidity.level_bn, 1),
      p.net_liquidity.trend,
    ]),
    style,
  );
}
