/**
 * `set local plan_cache_mode = force_custom_plan`, for a transaction whose statements look rows up by a list of
 * hundreds or thousands of keys (`key = any($1)`) in tables that grow fast: the drop copy's batches and the
 * transparency log's sequencer.
 *
 * postgres.js prepares every statement, and PostgreSQL may then settle on a generic plan, made once without the
 * list's values, and keep it until the table is next analyzed. A generic plan chosen while a table is small (a new
 * deployment, the first thousands of fills before autovacuum's analyze) scans the table and compares each row with
 * each key of the list: measured at 46 ms a batch of 500 against 10,000 rows, and growing with every batch. Planned
 * for its own values, the list is a constant that PostgreSQL hashes, or looks up through the index, whatever the
 * table's statistics say. Planning costs a fraction of a millisecond a statement; `local` ends with the transaction.
 */
export const CUSTOM_PLANS = 'set local plan_cache_mode = force_custom_plan';
