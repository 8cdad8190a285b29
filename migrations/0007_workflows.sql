-- Agentic workflows' companions: LLM providers and MCP connectors of an organization (shared,
-- or personal to one member), the per-workflow state that is not in services.spec (the next
-- scheduled firing, attached connectors), and the record of every run.

create table llm_providers (
  id                uuid primary key default gen_random_uuid(),
  organization_id   uuid not null references organizations (id) on delete cascade,
  name              text not null,
  description       text not null default '',
  type              text not null check (type in ('CLAUDE', 'BEDROCK')),
  scope             text not null check (scope in ('ORGANIZATION', 'USER')),
  -- the creator (always set for USER scope; null for an ORGANIZATION provider made by a token)
  owner_user_id     uuid references users (id) on delete cascade,
  region            text not null default '',
  credential_sealed text,
  created_at        timestamptz not null default now(),
  updated_at        timestamptz
);
create unique index llm_providers_org_name_key on llm_providers (organization_id, lower(name)) where scope = 'ORGANIZATION';
create unique index llm_providers_user_name_key on llm_providers (organization_id, owner_user_id, lower(name)) where scope = 'USER';
create index llm_providers_org_idx on llm_providers (organization_id, created_at, id);

create table mcp_servers (
  id              uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id) on delete cascade,
  name            text not null,
  description     text not null default '',
  url             text not null,
  scope           text not null check (scope in ('ORGANIZATION', 'USER')),
  owner_user_id   uuid references users (id) on delete cascade,
  -- names only (returned); the values are sealed as one JSON object (never returned)
  header_names    jsonb not null default '[]'::jsonb,
  headers_sealed  text,
  created_at      timestamptz not null default now(),
  updated_at      timestamptz
);
create unique index mcp_servers_org_name_key on mcp_servers (organization_id, lower(name)) where scope = 'ORGANIZATION';
create unique index mcp_servers_user_name_key on mcp_servers (organization_id, owner_user_id, lower(name)) where scope = 'USER';
create index mcp_servers_org_idx on mcp_servers (organization_id, created_at, id);

-- one row per AGENTIC_WORKFLOW service: what the scheduler and the model reference need as columns
create table agentic_workflows (
  service_id      uuid primary key references services (id) on delete cascade,
  organization_id uuid not null references organizations (id) on delete cascade,
  -- next firing of the schedule; null when webhook-only or disabled
  next_run_at     timestamptz,
  -- a provider in use cannot be deleted (409)
  llm_provider_id uuid constraint agentic_workflows_llm_provider_in_use references llm_providers (id) on delete restrict
);
create index agentic_workflows_next_run_idx on agentic_workflows (next_run_at) where next_run_at is not null;
create index agentic_workflows_llm_provider_idx on agentic_workflows (llm_provider_id) where llm_provider_id is not null;

-- attached MCP connectors, in the order given; deleting a connector detaches it everywhere
create table agentic_workflow_mcp_servers (
  service_id    uuid not null references agentic_workflows (service_id) on delete cascade,
  mcp_server_id uuid not null references mcp_servers (id) on delete cascade,
  required      boolean not null default false,
  position      integer not null,
  primary key (service_id, mcp_server_id)
);
create index agentic_workflow_mcp_servers_server_idx on agentic_workflow_mcp_servers (mcp_server_id);

create table agentic_workflow_runs (
  id                   uuid primary key default gen_random_uuid(),
  workflow_id          uuid not null references services (id) on delete cascade,
  organization_id      uuid not null references organizations (id) on delete cascade,
  trigger              text not null check (trigger in ('WEBHOOK', 'SCHEDULE')),
  payload              jsonb,
  status               text not null default 'QUEUED' check (status in ('QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELED')),
  -- the schedule occurrence this run is for (null for webhook runs): one run per occurrence
  scheduled_for        timestamptz,
  deployment_id        uuid,
  clone_environment_id uuid,
  message              text,
  created_at           timestamptz not null default now(),
  started_at           timestamptz,
  finished_at          timestamptz,
  updated_at           timestamptz
);
create unique index agentic_workflow_runs_occurrence_key on agentic_workflow_runs (workflow_id, scheduled_for);
create index agentic_workflow_runs_workflow_idx on agentic_workflow_runs (workflow_id, created_at desc, id);
create index agentic_workflow_runs_deployment_idx on agentic_workflow_runs (deployment_id) where deployment_id is not null;
