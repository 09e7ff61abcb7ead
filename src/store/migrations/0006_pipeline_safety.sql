-- Operator safety of pipeline runs.
--
-- Who holds a run: the process id and host of the run, so that on the embedded store (where advisory locks
-- never block: every connection is the same session) a `running` record whose process is gone is known to
-- be abandoned at once, instead of blocking later runs until a timeout.
alter table model_runs add column holder_pid integer;
alter table model_runs add column holder_host text;

-- What a publication did to the published history (days added, rewritten with other numbers, kept, removed),
-- and who confirmed it when it rewrote or removed published days.
alter table model_runs add column publish_plan jsonb;
alter table model_runs add column confirmed_by text;
