-- Git tokens of an organization (issue 27, decision 0340): the credentials berth clones private
-- repositories with. The token is sealed (AES-256-GCM, like registry and provider credentials)
-- and never returned.
--
-- A token goes with its organization (on delete cascade). Services name their token inside
-- services.spec (an application's git_repository, a git job's source, a workflow's
-- project_repositories), where no foreign key can reach: deleting a token that a service uses is
-- refused by the service layer (409 naming the services), the way registries in use are, and the
-- services that use a token are found from the organization's services (services_organization_idx).
create table git_tokens (
  id              uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id) on delete cascade,
  name            text not null,
  description     text not null default '',
  type            text not null check (type in ('GITHUB', 'GITLAB', 'BITBUCKET', 'GENERIC')),
  -- the Bitbucket workspace (required for BITBUCKET); null otherwise
  workspace       text,
  -- a self-hosted provider's API URL, as given ('' when none); berth calls no provider API
  git_api_url     text not null default '',
  token_sealed    text not null,
  -- when the token expires, as the caller recorded it; null when unknown
  expired_at      timestamptz,
  created_at      timestamptz not null default now(),
  updated_at      timestamptz
);
create unique index git_tokens_org_name_key on git_tokens (organization_id, lower(name));
create index git_tokens_org_idx on git_tokens (organization_id, created_at, id);
