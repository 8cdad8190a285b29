-- An agent run per pull request (issue 40, decision 0750): a workflow triggered by pull requests
-- runs once its pull request's preview is deployed and healthy at the head commit, against that
-- preview. The run names the preview and the head commit it tested: one run per workflow, preview
-- and head commit however many deployments settle at once; a newer head cancels the stale run.
alter table agentic_workflow_runs drop constraint agentic_workflow_runs_trigger_check;
alter table agentic_workflow_runs add constraint agentic_workflow_runs_trigger_check
  check (trigger in ('WEBHOOK', 'SCHEDULE', 'MANUAL', 'PULL_REQUEST'));
alter table agentic_workflow_runs
  add column preview_id  uuid references previews (id) on delete set null,
  add column head_commit text;
create unique index agentic_workflow_runs_pull_request_key on agentic_workflow_runs (workflow_id, preview_id, head_commit)
  where preview_id is not null;
create index agentic_workflow_runs_preview_idx on agentic_workflow_runs (preview_id) where preview_id is not null;
