-- Ownership of what a berth.yaml created (decision 0745): one row per project, environment,
-- service, variable or custom domain an apply made or adopted, naming the file (its path as the
-- client sent it). Prune deletes only rows of its own file; another file's resource is refused.
-- No foreign key: the rows live in several modules' tables; a row whose resource is gone is
-- ignored and removed at the next apply of its project.
create table manifest_resources (
  resource_id     uuid primary key,
  organization_id uuid not null references organizations(id) on delete cascade,
  project_id      uuid not null,
  kind            text not null,
  file            text not null,
  applied_at      timestamptz not null default now()
);
create index manifest_resources_project on manifest_resources (project_id, file);
