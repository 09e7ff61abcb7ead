/**
 * The columns of the feature frame, in order, each with its unit and meaning. `loadFeatureFrame` returns
 * exactly these as `Float64Array`s (NaN where a value does not exist yet: before a series starts, or before
 * a trailing window is full). `optional` columns (SPY, gold) do not count for `completeFrom`.
 */
export interface FeatureColumn {
  name: string;
  table: 'levels' | 'liquidity' | 'momentum' | 'trend';
  description: string;
  optional?: true;
}

const col = (table: FeatureColumn['table'], name: string, description: string, optional?: true): FeatureColumn =>
  optional ? { name, table, description, optional } : { name, table, description };

export const FEATURE_COLUMNS: readonly FeatureColumn[] = [
  col('liquidity', 'walcl_mn', 'WALCL, Fed total assets, millions of USD (usable from the Thursday after its Wednesday)'),
  col('liquidity', 'wtregen_mn', 'WTREGEN, Treasury General Account (week average), millions of USD'),
  col('liquidity', 'rrp_bn', 'RRPONTSYD, overnight reverse repo, billions of USD (0 on days without operations before 2013-09-23)'),
  col('liquidity', 'fed_assets_bn', 'WALCL in billions of USD'),
  col('liquidity', 'tga_bn', 'WTREGEN in billions of USD'),
  col('liquidity', 'net_liq_bn', 'net liquidity = (WALCL − RRP × 1000 − WTREGEN) / 1000, billions of USD'),
  col('liquidity', 'net_liq_change_4w_bn', 'net liquidity change over 20 trading days, billions of USD'),
  col('liquidity', 'net_liq_zscore', 'net liquidity z-score over the trailing 252 trading days (including the day)'),
  col('liquidity', 'net_liq_trend', '+1 EXPANDING, 0 FLAT (|4-week change| < 0.5 % of level), −1 CONTRACTING'),
  col('levels', 'ust10y_pct', 'DGS10, 10-year Treasury yield, percent'),
  col('levels', 'curve_10y2y_pp', 'T10Y2Y (or DGS10 − DGS2 when T10Y2Y lags), percentage points'),
  col('levels', 'hy_spread_pct', 'BAMLH0A0HYM2, high-yield option-adjusted spread, percent'),
  col('levels', 'vix', 'VIXCLS, VIX close, index points'),
  col('levels', 'dollar', 'DTWEXBGS (Jan 2006 = 100); before 2006 DTWEXB rescaled at the 2006-01-02 link'),
  col('momentum', 'mom_z_curve', 'standardized 20-day momentum of the curve'),
  col('momentum', 'mom_z_ust10y', 'standardized 20-day momentum of the 10Y yield'),
  col('momentum', 'mom_z_hy', 'standardized 20-day momentum of the high-yield spread'),
  col('momentum', 'mom_z_vix', 'standardized 20-day momentum of VIX'),
  col('momentum', 'mom_z_dollar', 'standardized 20-day momentum of the dollar index'),
  col('momentum', 'financial_stress_z', '−(mom_z_hy + mom_z_vix) / 2'),
  col('momentum', 'growth_momentum', 'gauge tanh(mom_z_curve / 2)'),
  col('momentum', 'inflation_momentum', 'gauge tanh(mom_z_ust10y / 2)'),
  col('momentum', 'liquidity', 'gauge tanh(net_liq_zscore / 2)'),
  col('momentum', 'financial_stress', 'gauge tanh(financial_stress_z / 2); positive = calm'),
  col('momentum', 'dollar_strength', 'gauge tanh(mom_z_dollar / 2)'),
  col('levels', 'equity_close', 'GSPC close, index points'),
  col('levels', 'ret_equity', 'GSPC daily simple return (close over previous close − 1)'),
  col('trend', 'equity_trend_200d', 'ln(GSPC close / its mean over the 200 closes ending on the day); NaN before 200 closes'),
  col('levels', 'spy_close', 'SPY close as traded, USD', true),
  col('levels', 'spy_open', 'SPY open as traded, USD (where the published performance trades)', true),
  col('levels', 'spy_dividend', 'SPY cash dividend per share that went ex on the day, USD (0 on other days)', true),
  col('levels', 'spy_split', 'SPY split taking effect on the day, shares after per share before (1 on other days)', true),
  col('levels', 'ret_spy', 'SPY daily total return: close × split × (1 + dividend / open) / previous close − 1', true),
  col('levels', 'gold_close', 'GLD close as traded, USD (from 2004-11-18)', true),
  col('levels', 'ret_gold', 'GLD daily total return (from 2004-11-19; GLD pays no dividend)', true),
];
