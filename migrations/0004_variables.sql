-- Environment variables and secrets of a project, an environment or a service. One table for all
-- scopes: `parent_id` is the owner (the project, environment or service id, by scope) and keys are
-- unique per owner. Secrets keep only a sealed value (AES-256-GCM); aliases and overrides point at
-- the variable they derive from (`target_id`) and disappear with it.

create table variables (
  id                           uuid primary key default gen_random_uuid(),
  organization_id              uuid not null references organizations (id) on delete cascade,
  project_id                   uuid not null references projects (id) on delete cascade,
  environment_id               uuid references environments (id) on delete cascade,
  service_id                   uuid references services (id) on delete cascade,
  parent_id                    uuid not null,
  scope                        text not null check (scope in ('PROJECT', 'ENVIRONMENT', 'APPLICATION', 'CONTAINER', 'JOB', 'HELM', 'TERRAFORM', 'AGENTIC_WORKFLOW')),
  key                          text not null,
  variable_type                text not null check (variable_type in ('VALUE', 'FILE', 'ALIAS', 'OVERRIDE')),
  is_secret                    boolean not null default false,
  -- clear value of a non-secret variable or override; null for secrets and aliases
  value                        text,
  -- sealed value of a secret variable or secret override; null otherwise
  value_sealed                 text,
  mount_path                   text,
  description                  text,
  enable_interpolation_in_file boolean,
  target_id                    uuid references variables (id) on delete cascade,
  created_at                   timestamptz not null default now(),
  updated_at                   timestamptz,
  constraint variables_parent_matches check (parent_id = coalesce(service_id, environment_id, project_id)),
  constraint variables_scope_matches check ((scope = 'PROJECT') = (environment_id is null) and (scope in ('PROJECT', 'ENVIRONMENT')) = (service_id is null)),
  constraint variables_target_matches check ((variable_type in ('ALIAS', 'OVERRIDE')) = (target_id is not null)),
  constraint variables_secret_not_clear check (not is_secret or value is null)
);
-- keys are case-sensitive and unique per owner (variables and secrets share the namespace)
create unique index variables_parent_key on variables (parent_id, key);
create index variables_parent_idx on variables (parent_id, created_at, id);
create index variables_target_idx on variables (target_id) where target_id is not null;
create index variables_environment_idx on variables (environment_id) where environment_id is not null;
create index variables_service_idx on variables (service_id) where service_id is not null;
