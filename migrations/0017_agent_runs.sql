-- Agent runs (issue 26): a run can be started by hand (POST /agenticWorkflow/{id}/run), and it
-- records what the agent harness reported when it ended: the final result text, the number of
-- turns, tokens in and out, the cost as the harness computed it, and how long the agent ran.
alter table agentic_workflow_runs drop constraint agentic_workflow_runs_trigger_check;
alter table agentic_workflow_runs add constraint agentic_workflow_runs_trigger_check check (trigger in ('WEBHOOK', 'SCHEDULE', 'MANUAL'));
alter table agentic_workflow_runs
  add column result        text,
  add column num_turns     integer,
  add column input_tokens  bigint,
  add column output_tokens bigint,
  add column cost_usd      double precision,
  add column duration_ms   integer,
  add column triggered_by  text;

-- A connector attached as `required` that is deleted later is detached by the cascade; the runs of
-- the workflow must then fail before they start, naming it. The deletion leaves a note here,
-- cleared when the workflow's attachments are saved again (a later settings update may drop it).
create table agentic_workflow_missing_connectors (
  service_id     uuid not null references services (id) on delete cascade,
  mcp_server_id  uuid not null,
  name           text not null,
  deleted_at     timestamptz not null default now(),
  primary key (service_id, mcp_server_id)
);

create function berth_note_missing_required_connector() returns trigger language plpgsql as $$
begin
  insert into agentic_workflow_missing_connectors (service_id, mcp_server_id, name)
    select a.service_id, old.id, old.name from agentic_workflow_mcp_servers a where a.mcp_server_id = old.id and a.required
    on conflict do nothing;
  return old;
end $$;

create trigger mcp_servers_note_required_before_delete before delete on mcp_servers
  for each row execute function berth_note_missing_required_connector();

-- A CLONE_ENVIRONMENT run's deployment lives in its throwaway copy and goes with it (its log
-- lines too): the run keeps its transcript here, copied when the run settles.
create table agentic_workflow_run_logs (
  id             bigserial primary key,
  run_id         uuid not null references agentic_workflow_runs (id) on delete cascade,
  deployment_id  uuid,
  service_id     uuid not null,
  kind           text not null,
  message        text not null,
  created_at     timestamptz not null
);
create index agentic_workflow_run_logs_run_idx on agentic_workflow_run_logs (run_id, id);
