-- Deployment rules: project rules (defaults applied to new environments whose name matches the
-- rule's wildcard, first by priority_index wins) and the one rule of each environment (its
-- start/stop schedule). Also: at most one default cluster per organization.

create unique index clusters_one_default_per_org on clusters (organization_id) where is_default;

create table project_deployment_rules (
  id              uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id) on delete cascade,
  project_id      uuid not null references projects (id) on delete cascade,
  name            text not null,
  description     text,
  mode            text not null check (mode in ('DEVELOPMENT', 'STAGING', 'PRODUCTION', 'PREVIEW')),
  cluster_id      uuid not null constraint project_deployment_rules_cluster_in_use references clusters (id) on delete restrict,
  -- IANA time zone in which start_time and stop_time are read
  timezone        text not null,
  -- wall-clock times, 'HH:MM'
  start_time      text not null,
  stop_time       text not null,
  -- array of MONDAY … SUNDAY
  weekdays        jsonb not null,
  auto_stop       boolean not null default false,
  wildcard        text not null default '',
  priority_index  integer not null,
  created_at      timestamptz not null default now(),
  updated_at      timestamptz
);
create unique index project_deployment_rules_name_key on project_deployment_rules (project_id, lower(name));
create index project_deployment_rules_project_idx on project_deployment_rules (project_id, priority_index, created_at);
create index project_deployment_rules_cluster_idx on project_deployment_rules (cluster_id);

create table environment_deployment_rules (
  id                uuid primary key default gen_random_uuid(),
  environment_id    uuid not null unique references environments (id) on delete cascade,
  timezone          text not null default 'UTC',
  start_time        text not null default '08:00',
  stop_time         text not null default '19:00',
  weekdays          jsonb not null default '["MONDAY","TUESDAY","WEDNESDAY","THURSDAY","FRIDAY"]'::jsonb,
  auto_stop         boolean not null default false,
  on_demand_preview boolean not null default false,
  created_at        timestamptz not null default now(),
  updated_at        timestamptz
);
