-- SPY's open on each published day, beside its close: the published performance takes each regime's exposure
-- at the first open after the regime is published (pipeline/reports/execution.ts), so anyone recomputing the
-- figures needs the opens as well as the closes. Dividend-adjusted, as the close.
--
-- Days published before this column existed have no open until a full run (`tradeseal pipeline run --full`)
-- republishes them; until then they earn no strategy return, and each run's reports say how many there are.
alter table market_days add column spy_open double precision;
