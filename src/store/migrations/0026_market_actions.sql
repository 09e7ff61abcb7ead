-- SPY's prices are kept as traded, with the cash dividend per share that went ex on each day and the split that
-- took effect on it: the published performance computes total returns from them (pipeline/reports/total-return.ts).
-- Adjusted prices, which these replace, change every past price on each ex-dividend day and split, so they cannot
-- extend a published history.
--
-- Days published with adjusted prices (before this migration) read as days without an action (0 and 1), which is
-- how adjusted prices are meant; the next run refuses to extend them, since SPY's input rows differ, and a full
-- run (`tradeseal pipeline run --full`) republishes them as traded.
alter table market_days add column spy_dividend double precision;
alter table market_days add column spy_split double precision;
