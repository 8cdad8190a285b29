-- A monotonic counter is bumped in the transaction of the change it counts, so every delivery
-- attempt and every settled deployment updated one row, held locked until its commit: with 8
-- delivery slots that row was 32 % of the database's busy samples (bench:scale,
-- docs/performance-scale.md). Each counter is now spread over a few rows (a random one bumped,
-- their sum read), so concurrent writers rarely wait on each other.
alter table metric_counters add column shard smallint not null default 0;
alter table metric_counters drop constraint metric_counters_pkey;
alter table metric_counters add primary key (name, labels, shard);
