-- Deployments (one record per action on a service, run one at a time per environment), their
-- log lines (build, deploy and runtime lines written by the engine), organization webhooks and
-- the delivery history of their events (one row per event per webhook, one per attempt).

create table deployments (
  id               uuid primary key default gen_random_uuid(),
  -- queue order inside an environment
  position         bigserial not null,
  organization_id  uuid not null references organizations (id) on delete cascade,
  project_id       uuid not null references projects (id) on delete cascade,
  environment_id   uuid not null references environments (id) on delete cascade,
  service_id       uuid not null references services (id) on delete cascade,
  service_type     text not null,
  action           text not null check (action in ('DEPLOY', 'REDEPLOY', 'STOP', 'RESTART', 'UNINSTALL')),
  status           text not null default 'QUEUED',
  finished         boolean not null default false,
  git_commit_id    text,
  image_tag        text,
  origin           text not null default 'API',
  triggered_by     text,
  metadata         jsonb not null default '{}'::jsonb,
  message          text,
  -- the service state before the deployment started (restored on cancel)
  previous_state   text,
  cancel_requested boolean not null default false,
  -- liveness of the worker running it: a stale heartbeat means the worker died (see 0161)
  runner_task_id   text,
  heartbeat_at     timestamptz,
  recoveries       integer not null default 0,
  created_at       timestamptz not null default now(),
  started_at       timestamptz,
  finished_at      timestamptz,
  updated_at       timestamptz
);
create index deployments_environment_queue_idx on deployments (environment_id, position) where not finished;
create index deployments_service_idx on deployments (service_id, created_at desc, id);
create index deployments_running_idx on deployments (heartbeat_at) where not finished;

create table deployment_logs (
  id             bigserial primary key,
  deployment_id  uuid references deployments (id) on delete cascade,
  service_id     uuid not null references services (id) on delete cascade,
  kind           text not null check (kind in ('BUILD', 'DEPLOY', 'RUNTIME')),
  message        text not null,
  created_at     timestamptz not null default now()
);
create index deployment_logs_deployment_idx on deployment_logs (deployment_id, id);
create index deployment_logs_service_idx on deployment_logs (service_id, id);

create table webhooks (
  id                        uuid primary key default gen_random_uuid(),
  organization_id           uuid not null references organizations (id) on delete cascade,
  kind                      text not null default 'STANDARD' check (kind in ('STANDARD', 'SLACK')),
  target_url                text not null,
  description               text,
  enabled                   boolean not null default true,
  events                    jsonb not null default '[]'::jsonb,
  project_names_filter      jsonb not null default '[]'::jsonb,
  environment_types_filter  jsonb not null default '[]'::jsonb,
  -- the whsec_ signing secret, sealed (AES-256-GCM)
  secret_sealed             text not null,
  target_secret_set         boolean not null default false,
  disabled_reason           text,
  created_at                timestamptz not null default now(),
  updated_at                timestamptz
);
create index webhooks_organization_idx on webhooks (organization_id, created_at, id);

create table webhook_events (
  id               uuid primary key default gen_random_uuid(),
  webhook_id       uuid not null references webhooks (id) on delete cascade,
  organization_id  uuid not null references organizations (id) on delete cascade,
  event_kind       text not null,
  -- the Standard Webhooks message id (`webhook-id`), stable across retries
  message_id       text not null,
  body             text not null,
  status           text not null default 'PENDING' check (status in ('PENDING', 'DELIVERED', 'FAILED')),
  attempts         integer not null default 0,
  last_status_code integer,
  target_url_used  text,
  next_attempt_at  timestamptz,
  created_at       timestamptz not null default now(),
  updated_at       timestamptz
);
create index webhook_events_webhook_idx on webhook_events (webhook_id, created_at desc, id);

create table webhook_attempts (
  id               bigserial primary key,
  event_id         uuid not null references webhook_events (id) on delete cascade,
  attempt          integer not null,
  target_url       text not null,
  response_status  integer,
  response_body    text,
  error            text,
  duration_ms      integer not null,
  created_at       timestamptz not null default now()
);
create index webhook_attempts_event_idx on webhook_attempts (event_id, attempt);
