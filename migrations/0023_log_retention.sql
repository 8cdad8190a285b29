-- Retention of runtime lines (issue 31, decision 0408). A service's runtime lines are its running
-- app's output (kind RUNTIME, no deployment, no job run); the pruner deletes them by age and keeps
-- each service's newest LOG_RETENTION_LINES_PER_SERVICE, in bounded batches.
-- The table is locked against writes first, so that the count below and the counting function
-- that replaces the old one see the same lines (a berth still running the old version waits here).
lock table deployment_logs in share mode;

-- Both deletes walk a service's runtime lines oldest first (by age: those before the cutoff; by
-- count: the oldest beyond the newest N), on this index only.
create index deployment_logs_runtime_idx on deployment_logs (service_id, created_at)
  where kind = 'RUNTIME' and deployment_id is null and run_id is null;

-- How many runtime lines each service has (`row_counts`, kind `runtime_logs`), kept by the same
-- statement trigger that counts a deployment's lines (0011, 0014), in the same statement: the
-- pruner finds the services over their count without counting lines.
create or replace function row_counts_deployment_logs_count() returns trigger language plpgsql as $body$
begin
  if TG_OP = 'INSERT' then
    insert into row_counts (parent_id, kind, shard, n)
      select coalesce(c.deployment_id, c.service_id), case when c.deployment_id is null then 'runtime_logs' else 'logs' end,
             pg_backend_pid() % 8, count(*)
        from changed c where c.deployment_id is not null or (c.kind = 'RUNTIME' and c.run_id is null)
       group by 1, 2 order by 1, 2
    on conflict (parent_id, kind, shard) do update set n = row_counts.n + excluded.n;
  else
    -- not for a parent whose counts are gone (deleted with it, row_counts_forget)
    insert into row_counts (parent_id, kind, shard, n)
      select d.parent_id, d.kind, pg_backend_pid() % 8, -d.n
        from (select coalesce(c.deployment_id, c.service_id) as parent_id,
                     case when c.deployment_id is null then 'runtime_logs' else 'logs' end as kind, count(*) as n
                from changed c where c.deployment_id is not null or (c.kind = 'RUNTIME' and c.run_id is null)
               group by 1, 2) d
       where exists (select 1 from row_counts r where r.parent_id = d.parent_id and r.kind = d.kind) order by 1, 2
    on conflict (parent_id, kind, shard) do update set n = row_counts.n + excluded.n;
  end if;
  return null;
end $body$;

insert into row_counts (parent_id, kind, shard, n)
  select service_id, 'runtime_logs', 0, count(*) from deployment_logs
   where kind = 'RUNTIME' and deployment_id is null and run_id is null group by 1;
