-- Preview environments (issue 27, decision 0342): a pull request against the branch that services
-- with auto_preview track gets a throwaway copy of their environment (mode PREVIEW), redeployed on
-- new commits and deleted when the pull request closes.
--
-- One row per pull request and source environment (a second "opened" finds it), through its
-- whole life: OPEN (the copy exists), REFUSED (the cap of open previews per environment was
-- reached), FAILED (the copy could not be made), CLOSED (the copy was deleted: the pull request
-- closed, the copy expired or someone deleted it; `message` says which). A later event of the
-- same pull request may open it again.
create table previews (
  id                       uuid primary key default gen_random_uuid(),
  organization_id          uuid not null references organizations (id) on delete cascade,
  source_environment_id    uuid not null references environments (id) on delete cascade,
  provider                 text not null check (provider in ('GITHUB', 'GITLAB', 'BITBUCKET', 'GITEA')),
  -- the repository as one key for its https, ssh and web URLs (host/path, lower case, no .git)
  repository_key           text not null,
  repository_url           text not null,
  pull_request_number      integer not null,
  title                    text not null default '',
  author                   text,
  base_branch              text not null,
  head_branch              text not null,
  head_commit              text not null,
  preview_environment_id   uuid references environments (id) on delete set null,
  -- kept once the copy is gone, for the history
  preview_environment_name text,
  state                    text not null check (state in ('OPEN', 'REFUSED', 'FAILED', 'CLOSED')),
  message                  text,
  created_at               timestamptz not null default now(),
  updated_at               timestamptz
);
create unique index previews_pull_request_key on previews (source_environment_id, repository_key, pull_request_number);
create index previews_source_idx on previews (source_environment_id, updated_at desc, id);
create index previews_preview_environment_idx on previews (preview_environment_id) where preview_environment_id is not null;
