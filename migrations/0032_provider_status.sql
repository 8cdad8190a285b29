-- Status on the provider (issue 40, decision 0740): each deployment a push or a pull request's
-- preview requested is reported on its commit at the git provider, and each pull request with a
-- preview has one comment, edited in place. Owned by src/modules/provider-status.

-- One row per reported deployment: the last stage posted (never posted twice, never backwards),
-- GitHub's Deployment id, the last error and why nothing is posted (skipped). `lease_until`: the
-- worker posting for it (one at a time, so statuses go out in order).
create table provider_reports (
  deployment_id   uuid primary key references deployments (id) on delete cascade,
  organization_id uuid not null references organizations (id) on delete cascade,
  preview_id      uuid references previews (id) on delete cascade,
  service_id      uuid not null,
  service_name    text not null,
  commit_sha      text not null,
  git_token_id    uuid,
  repository_url  text,
  posted          text check (posted in ('QUEUED', 'IN_PROGRESS', 'DONE')),
  external_id     text,
  attempts        integer not null default 0,
  last_error      text,
  skipped         text,
  last_posted_at  timestamptz,
  lease_until     timestamptz,
  created_at      timestamptz not null default now()
);
create index provider_reports_preview_idx on provider_reports (preview_id, created_at) where preview_id is not null;

-- One row per pull request's preview: the provider's id of berth's comment, and what the preview
-- shows of the reporting (reason: why nothing is posted; the last error; when berth last posted).
create table provider_pull_requests (
  preview_id      uuid primary key references previews (id) on delete cascade,
  organization_id uuid not null references organizations (id) on delete cascade,
  comment_id      text,
  git_token_id    uuid,
  repository_url  text,
  reason          text,
  last_error      text,
  last_posted_at  timestamptz,
  attempts        integer not null default 0,
  lease_until     timestamptz
);

-- A git token the provider said may not write to a repository (401/403/404): nothing more is
-- posted with it there until the token is edited (its updated_at changes).
create table provider_denials (
  git_token_id     uuid not null references git_tokens (id) on delete cascade,
  repository_key   text not null,
  token_changed_at timestamptz not null,
  reason           text not null,
  created_at       timestamptz not null default now(),
  primary key (git_token_id, repository_key)
);
