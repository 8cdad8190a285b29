-- Live streams (docs/decisions/0500): every writer of log lines and statuses is covered by
-- triggers that NOTIFY, so an API process serving a stream learns of rows written by any worker.
-- Notifications only wake readers up; readers always re-read the tables after their cursor.

-- The transaction that wrote each line. A stream reads lines in (tx, id) order and only those of
-- transactions older than every transaction still running (pg_snapshot_xmin), so a line whose
-- transaction commits late can never fall behind a cursor already handed out.
alter table deployment_logs add column tx xid8 not null default pg_current_xact_id();
create index deployment_logs_deployment_stream_idx on deployment_logs (deployment_id, tx, id);
create index deployment_logs_service_stream_idx on deployment_logs (service_id, tx, id);

create function berth_notify_log_line() returns trigger language plpgsql as $$
begin
  perform pg_notify('berth_log', json_build_object(
    'id', new.id, 'service_id', new.service_id, 'deployment_id', new.deployment_id)::text);
  return null;
end $$;
create trigger deployment_logs_notify after insert on deployment_logs
  for each row execute function berth_notify_log_line();

create function berth_notify_deployment_status() returns trigger language plpgsql as $$
begin
  perform pg_notify('berth_status', json_build_object(
    'environment_id', new.environment_id, 'service_id', new.service_id, 'deployment_id', new.id)::text);
  return null;
end $$;
create trigger deployments_notify_insert after insert on deployments
  for each row execute function berth_notify_deployment_status();
create trigger deployments_notify_status after update of status, finished on deployments
  for each row when (old.status is distinct from new.status or old.finished is distinct from new.finished)
  execute function berth_notify_deployment_status();

create function berth_notify_service_status() returns trigger language plpgsql as $$
declare
  r record;
begin
  if tg_op = 'DELETE' then r := old; else r := new; end if;
  perform pg_notify('berth_status', json_build_object(
    'environment_id', r.environment_id, 'service_id', r.id, 'deployment_id', null)::text);
  return null;
end $$;
create trigger services_notify_insert_delete after insert or delete on services
  for each row execute function berth_notify_service_status();
create trigger services_notify_state after update of state, deployment_status, last_deployment_at, name on services
  for each row when (old.state is distinct from new.state or old.deployment_status is distinct from new.deployment_status
    or old.last_deployment_at is distinct from new.last_deployment_at or old.name is distinct from new.name)
  execute function berth_notify_service_status();
