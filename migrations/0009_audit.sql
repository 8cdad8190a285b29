-- 0009: API quality (issue 14).

-- Cluster advanced settings: only the keys that differ from the defaults (src/modules/clusters/cluster-settings.ts).
alter table clusters add column advanced_settings jsonb not null default '{}'::jsonb;

-- The organization audit log (GET /organization/{id}/events): one row per successful mutation,
-- written by the HTTP layer's one audit hook (src/modules/audit). Names are copied, not joined,
-- so an event still reads the same after its target is deleted.
create table audit_events (
  seq               bigserial primary key,
  id                uuid not null unique default gen_random_uuid(),
  organization_id   uuid not null references organizations (id) on delete cascade,
  created_at        timestamptz not null default now(),
  event_type        text not null,
  target_type       text not null,
  target_id         uuid,
  target_name       text not null default '',
  sub_target_type   text,
  change            text not null default '',
  origin            text not null default 'API',
  triggered_by      text not null,
  principal_kind    text not null check (principal_kind in ('token', 'user')),
  principal_id      uuid not null,
  project_id        uuid,
  project_name      text not null default '',
  environment_id    uuid,
  environment_name  text not null default '',
  user_agent        text,
  request_id        text
);
create index audit_events_org_seq_idx on audit_events (organization_id, seq desc);
create index audit_events_org_target_idx on audit_events (organization_id, target_id, seq desc);

-- Monotonic counters for /metrics (src/db/counters.ts): deployments and webhook deliveries by
-- outcome, bumped in the transaction of the change they count; never decremented.
create table metric_counters (
  name    text not null,
  labels  text not null,
  value   bigint not null default 0,
  primary key (name, labels)
);
