/**
 * Statements that look rows up by a list of hundreds or thousands of keys (`key = any($1)`) in tables that grow
 * fast (the drop copy's batches, the transparency log's sequencer) are planned for their own values: sent between
 * CUSTOM_PLANS_ON and CUSTOM_PLANS_OFF, in the same round trip, inside a transaction.
 *
 * postgres.js prepares every statement, and PostgreSQL may then settle on a generic plan, made once without the
 * list's values, and keep it until the table is next analyzed. A generic plan chosen while a table is small (a new
 * deployment, the first thousands of fills before autovacuum's analyze) scans the table and compares each row with
 * each key of the list: measured at 46 ms a batch of 500 against 10,000 rows, and growing with every batch. Planned
 * for its own values, the list is a constant that PostgreSQL hashes, or looks up through the index, whatever the
 * table's statistics say. Only the lookups: planning every statement of a batch each time cost more than it saved.
 */
export const CUSTOM_PLANS_ON = 'set local plan_cache_mode = force_custom_plan';
export const CUSTOM_PLANS_OFF = 'set local plan_cache_mode = auto';
