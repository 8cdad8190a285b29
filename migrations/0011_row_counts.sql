-- Exact totals for pages without counting rows (issue 15): a list's `total_count` is read from
-- `row_counts` (one row per parent and kind of child) instead of `count(*)`, which grows with the
-- table. Statement-level triggers keep the counts in the same transaction as the inserts and
-- deletes, so they are exact; a batch insert updates each parent's count once.
-- Kinds: projects (of an organization), environments (of a project), `services.<TYPE>` (of an
-- environment), deployments (of an environment and of a service), logs (of a deployment),
-- webhook_events (of a webhook).
create table row_counts (
  parent_id uuid not null,
  kind      text not null,
  n         bigint not null default 0,
  primary key (parent_id, kind)
);

-- TG_ARGV: [0] the parent column, [1] the kind, [2] optional column whose value is appended to
-- the kind after a dot (services.APPLICATION)
create function row_counts_apply() returns trigger language plpgsql as $$
declare
  kind_sql text := case when TG_NARGS > 2 then format('%L || ''.'' || %I', TG_ARGV[1], TG_ARGV[2]) else format('%L', TG_ARGV[1]) end;
begin
  if TG_OP = 'INSERT' then
    execute format(
      'insert into row_counts (parent_id, kind, n)
         select %1$I, %2$s, count(*) from changed where %1$I is not null group by 1, 2 order by 1, 2
       on conflict (parent_id, kind) do update set n = row_counts.n + excluded.n',
      TG_ARGV[0], kind_sql);
  else
    execute format(
      'update row_counts r set n = r.n - d.n
         from (select %1$I as parent_id, %2$s as kind, count(*) as n from changed where %1$I is not null group by 1, 2) d
        where r.parent_id = d.parent_id and r.kind = d.kind',
      TG_ARGV[0], kind_sql);
  end if;
  return null;
end $$;

-- a deleted parent takes its counts along
create function row_counts_forget() returns trigger language plpgsql as $$
begin
  delete from row_counts where parent_id in (select id from changed);
  return null;
end $$;

create trigger projects_count_ins after insert on projects referencing new table as changed
  for each statement execute function row_counts_apply('organization_id', 'projects');
create trigger projects_count_del after delete on projects referencing old table as changed
  for each statement execute function row_counts_apply('organization_id', 'projects');

create trigger environments_count_ins after insert on environments referencing new table as changed
  for each statement execute function row_counts_apply('project_id', 'environments');
create trigger environments_count_del after delete on environments referencing old table as changed
  for each statement execute function row_counts_apply('project_id', 'environments');

create trigger services_count_ins after insert on services referencing new table as changed
  for each statement execute function row_counts_apply('environment_id', 'services', 'type');
create trigger services_count_del after delete on services referencing old table as changed
  for each statement execute function row_counts_apply('environment_id', 'services', 'type');

create trigger deployments_env_count_ins after insert on deployments referencing new table as changed
  for each statement execute function row_counts_apply('environment_id', 'deployments');
create trigger deployments_env_count_del after delete on deployments referencing old table as changed
  for each statement execute function row_counts_apply('environment_id', 'deployments');
create trigger deployments_svc_count_ins after insert on deployments referencing new table as changed
  for each statement execute function row_counts_apply('service_id', 'deployments');
create trigger deployments_svc_count_del after delete on deployments referencing old table as changed
  for each statement execute function row_counts_apply('service_id', 'deployments');

create trigger deployment_logs_count_ins after insert on deployment_logs referencing new table as changed
  for each statement execute function row_counts_apply('deployment_id', 'logs');
create trigger deployment_logs_count_del after delete on deployment_logs referencing old table as changed
  for each statement execute function row_counts_apply('deployment_id', 'logs');

create trigger webhook_events_count_ins after insert on webhook_events referencing new table as changed
  for each statement execute function row_counts_apply('webhook_id', 'webhook_events');
create trigger webhook_events_count_del after delete on webhook_events referencing old table as changed
  for each statement execute function row_counts_apply('webhook_id', 'webhook_events');

create trigger organizations_counts_forget after delete on organizations referencing old table as changed
  for each statement execute function row_counts_forget();
create trigger projects_counts_forget after delete on projects referencing old table as changed
  for each statement execute function row_counts_forget();
create trigger environments_counts_forget after delete on environments referencing old table as changed
  for each statement execute function row_counts_forget();
create trigger services_counts_forget after delete on services referencing old table as changed
  for each statement execute function row_counts_forget();
create trigger deployments_counts_forget after delete on deployments referencing old table as changed
  for each statement execute function row_counts_forget();
create trigger webhooks_counts_forget after delete on webhooks referencing old table as changed
  for each statement execute function row_counts_forget();

-- what is already stored
insert into row_counts (parent_id, kind, n) select organization_id, 'projects', count(*) from projects group by 1;
insert into row_counts (parent_id, kind, n) select project_id, 'environments', count(*) from environments group by 1;
insert into row_counts (parent_id, kind, n) select environment_id, 'services.' || type, count(*) from services group by 1, 2;
insert into row_counts (parent_id, kind, n) select environment_id, 'deployments', count(*) from deployments group by 1;
insert into row_counts (parent_id, kind, n) select service_id, 'deployments', count(*) from deployments group by 1;
insert into row_counts (parent_id, kind, n) select deployment_id, 'logs', count(*) from deployment_logs where deployment_id is not null group by 1;
insert into row_counts (parent_id, kind, n) select webhook_id, 'webhook_events', count(*) from webhook_events group by 1;
