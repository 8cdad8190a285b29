-- Run-scoped credentials (issue 28, docs/decisions/0197): what an agentic workflow run presents
-- to berth's own MCP server. Minted when the run starts, it reaches only the run's environment
-- (its throwaway copy in CLONE_ENVIRONMENT mode) and the services listed here (the workflow and
-- its context services), reading only unless may_act; it stops working at expires_at or when the
-- run ends (revoked_at), whichever comes first. Only the SHA-256 of the secret is stored.
create table run_credentials (
  id              uuid primary key default gen_random_uuid(),
  token_hash      text not null unique,
  organization_id uuid not null references organizations (id) on delete cascade,
  run_id          uuid not null references agentic_workflow_runs (id) on delete cascade,
  workflow_id     uuid not null,
  environment_id  uuid not null,
  service_ids     uuid[] not null default '{}',
  may_act         boolean not null default false,
  expires_at      timestamptz not null,
  revoked_at      timestamptz,
  created_at      timestamptz not null default now()
);
create index run_credentials_run_idx on run_credentials (run_id);
