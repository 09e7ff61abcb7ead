-- When each published day became available: the instant its regime is published (06:30 New York on the next
-- trading day, pipeline/release/publication.ts), computed from the values released by then. Days published
-- by a model version before release-time data have none (null) until a run republishes them.
alter table signal_days add column available_at timestamptz;

-- The pipeline's broadcast carries the available_at of the day it broadcasts (null for an operator's broadcast,
-- which is in force from its published_at). Not part of the broadcast hash: the hash covers the interface's fields.
alter table regime_broadcasts add column available_at timestamptz;
