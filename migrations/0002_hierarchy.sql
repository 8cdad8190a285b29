-- The infrastructure hierarchy every service lives in: clusters and container registries of an
-- organization, projects, environments, and the one table of services (every service type;
-- type-specific members in `spec`, sealed secrets in `secrets`).

create table clusters (
  id                uuid primary key default gen_random_uuid(),
  organization_id   uuid not null references organizations (id) on delete cascade,
  name              text not null,
  description       text not null default '',
  region            text not null default 'local',
  cloud_provider    text not null default 'ON_PREMISE',
  kubernetes        text not null default 'MANAGED',
  production        boolean not null default false,
  instance_type     text,
  min_running_nodes integer not null default 1,
  max_running_nodes integer not null default 1,
  disk_size         integer not null default 50,
  cpu               integer not null default 4000,
  memory            integer not null default 8192,
  gpu               integer not null default 0,
  is_default        boolean not null default false,
  status            text not null default 'READY',
  created_at        timestamptz not null default now(),
  updated_at        timestamptz
);
create unique index clusters_org_name_key on clusters (organization_id, lower(name));
create index clusters_org_idx on clusters (organization_id, created_at, id);

create table container_registries (
  id              uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id) on delete cascade,
  name            text not null,
  kind            text not null,
  url             text not null,
  description     text not null default '',
  config          jsonb not null default '{}'::jsonb,
  config_sealed   text,
  created_at      timestamptz not null default now(),
  updated_at      timestamptz
);
create unique index container_registries_org_name_key on container_registries (organization_id, lower(name));
create index container_registries_org_idx on container_registries (organization_id, created_at, id);

create table projects (
  id              uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id) on delete cascade,
  name            text not null,
  description     text not null default '',
  created_at      timestamptz not null default now(),
  updated_at      timestamptz
);
create unique index projects_org_name_key on projects (organization_id, lower(name));
create index projects_org_idx on projects (organization_id, created_at, id);

create table environments (
  id              uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id) on delete cascade,
  project_id      uuid not null references projects (id) on delete cascade,
  cluster_id      uuid not null constraint environments_cluster_in_use references clusters (id) on delete restrict,
  name            text not null,
  mode            text not null check (mode in ('DEVELOPMENT', 'STAGING', 'PRODUCTION', 'PREVIEW')),
  auto_preview    boolean not null default false,
  -- set while the environment is being deleted: actions on its services are refused (409)
  deleting        boolean not null default false,
  -- throwaway copies (clones for workflow runs, previews) expire; null otherwise
  expires_at      timestamptz,
  cloned_from_id  uuid references environments (id) on delete set null,
  created_at      timestamptz not null default now(),
  updated_at      timestamptz
);
create unique index environments_project_name_key on environments (project_id, lower(name));
create index environments_project_idx on environments (project_id, created_at, id);
create index environments_cluster_idx on environments (cluster_id);
create index environments_expires_idx on environments (expires_at) where expires_at is not null;

create table services (
  id                uuid primary key default gen_random_uuid(),
  organization_id   uuid not null references organizations (id) on delete cascade,
  project_id        uuid not null references projects (id) on delete cascade,
  environment_id    uuid not null references environments (id) on delete cascade,
  type              text not null check (type in ('APPLICATION', 'DATABASE', 'CONTAINER', 'JOB', 'HELM', 'TERRAFORM', 'ARGOCD_APP', 'AGENTIC_WORKFLOW')),
  name              text not null,
  slug              text not null,
  -- the type's own members (never secrets)
  spec              jsonb not null default '{}'::jsonb,
  -- sealed (AES-256-GCM) secret members of the type, e.g. a model api_key or a database password
  secrets           jsonb not null default '{}'::jsonb,
  advanced_settings jsonb not null default '{}'::jsonb,
  -- runtime status: state (RUNNING, STOPPED, ERROR and transitional values), deployment status
  state             text not null default 'STOPPED',
  deployment_status text not null default 'NEVER_DEPLOYED' check (deployment_status in ('NEVER_DEPLOYED', 'UP_TO_DATE', 'OUT_OF_DATE')),
  last_deployment_at timestamptz,
  created_at        timestamptz not null default now(),
  updated_at        timestamptz
);
create unique index services_environment_name_key on services (environment_id, lower(name));
create index services_environment_idx on services (environment_id, type, created_at, id);
create index services_organization_idx on services (organization_id);
