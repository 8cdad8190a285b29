-- Deploy on push (issue 27, decision 0341): provider webhooks and polling turn a new commit on the
-- branch a service tracks into one deployment of that commit.

-- The secret git providers sign their push webhooks with, one per organization. Sealed
-- (AES-256-GCM under ENCRYPTION_KEY), not hashed: checking an HMAC needs the secret itself.
create table git_webhook_secrets (
  organization_id uuid primary key references organizations (id) on delete cascade,
  secret          text not null,
  created_at      timestamptz not null default now()
);

-- Deliveries acted on, by the provider's delivery id: a replay is acknowledged and ignored.
-- Rows older than 7 days are deleted by the poller's housekeeping.
create table git_push_deliveries (
  organization_id uuid not null references organizations (id) on delete cascade,
  provider        text not null,
  delivery_id     text not null,
  received_at     timestamptz not null default now(),
  primary key (organization_id, provider, delivery_id)
);
create index git_push_deliveries_received_idx on git_push_deliveries (received_at);

-- The newest commit berth has seen on the branch a service tracks, with the repository and branch
-- it tracked then (a service edited to track another one starts over), and a commit waiting for
-- the environment's deployment window. "A new commit → one deployment" is a change of this row
-- made under its lock, in the transaction that queues the deployment.
create table git_push_heads (
  service_id      uuid primary key references services (id) on delete cascade,
  organization_id uuid not null references organizations (id) on delete cascade,
  repository_key  text not null,
  branch          text not null,
  last_commit     text,
  seen_at         timestamptz not null default now(),
  waiting_commit  text,
  waiting_push    jsonb
);
create index git_push_heads_organization_idx on git_push_heads (organization_id);
create index git_push_heads_waiting_idx on git_push_heads (service_id) where waiting_commit is not null;

-- The audit event of a deployment a push queued (origin GIT) has no API caller: its principal is
-- the push ('git', principal_id the organization), triggered_by the pusher.
alter table audit_events drop constraint audit_events_principal_kind_check;
alter table audit_events add constraint audit_events_principal_kind_check check (principal_kind in ('token', 'user', 'git'));
