-- The Docker engine: which process watches the daemon (one lease across processes), the cron
-- schedule of deployed cron jobs, and the runs of jobs (cron occurrences and lifecycle
-- commands) with their exit codes; their output lines are deployment_logs rows tagged run_id.

create table engine_leases (
  name        text primary key,
  holder      text not null,
  expires_at  timestamptz not null
);

create table job_runs (
  id               uuid primary key default gen_random_uuid(),
  job_id           uuid not null references services (id) on delete cascade,
  organization_id  uuid not null references organizations (id) on delete cascade,
  environment_id   uuid not null references environments (id) on delete cascade,
  trigger          text not null check (trigger in ('CRON', 'ON_START', 'ON_STOP', 'ON_DELETE', 'MANUAL')),
  scheduled_for    timestamptz,
  status           text not null default 'QUEUED' check (status in ('QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELED')),
  exit_code        integer,
  attempts         integer not null default 0,
  message          text,
  created_at       timestamptz not null default now(),
  started_at       timestamptz,
  finished_at      timestamptz
);
-- exactly one run per cron occurrence, whichever worker fires it
create unique index job_runs_occurrence_idx on job_runs (job_id, scheduled_for) where scheduled_for is not null;
create index job_runs_job_idx on job_runs (job_id, created_at desc, id);

create table job_schedules (
  job_id       uuid primary key references services (id) on delete cascade,
  next_run_at  timestamptz not null
);
create index job_schedules_due_idx on job_schedules (next_run_at);

alter table deployment_logs add column run_id uuid references job_runs (id) on delete cascade;
create index deployment_logs_run_idx on deployment_logs (run_id, id) where run_id is not null;
