-- Organization annotations and labels groups: named sets of Kubernetes annotations (with the
-- object kinds they apply to) and labels that services reference by id in their spec
-- (`annotations_groups` / `labels_groups`: [{id}]).

create table annotations_groups (
  id              uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id) on delete cascade,
  name            text not null,
  annotations     jsonb not null default '[]'::jsonb,
  scopes          jsonb not null default '[]'::jsonb,
  created_at      timestamptz not null default now(),
  updated_at      timestamptz
);
create unique index annotations_groups_org_name_key on annotations_groups (organization_id, lower(name));
create index annotations_groups_org_idx on annotations_groups (organization_id, created_at, id);

create table labels_groups (
  id              uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id) on delete cascade,
  name            text not null,
  labels          jsonb not null default '[]'::jsonb,
  created_at      timestamptz not null default now(),
  updated_at      timestamptz
);
create unique index labels_groups_org_name_key on labels_groups (organization_id, lower(name));
create index labels_groups_org_idx on labels_groups (organization_id, created_at, id);
