-- Which container wrote a RUNTIME line (decision 0332): the Docker container id, which a replica
-- keeps across berth restarts and Docker's own restarts of it. A re-adopted replica resumes after
-- its own last recorded line, found on the first index; lines recorded before this migration
-- have none, and the second index finds the service's last of those (where a replica that has
-- no line of its own yet resumes, once, after the upgrade).
alter table deployment_logs add column container_id text;
create index deployment_logs_container_idx on deployment_logs (container_id, created_at) where container_id is not null;
create index deployment_logs_untagged_runtime_idx on deployment_logs (service_id, created_at)
  where kind = 'RUNTIME' and deployment_id is null and run_id is null and container_id is null;
