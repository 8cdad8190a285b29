-- Notification channels of an organization and the incidents they carry (issue 39, decision 0730).
--
-- A channel is a Slack- or Discord-compatible incoming webhook (its URL sealed like every other
-- secret: it is the credential, never returned; only its host is) or e-mail over the operator's
-- SMTP server (SMTP_URL) to a list of recipients. `events` lists the incident kinds it carries
-- (all of them by default).
create table notification_channels (
  id                 uuid primary key default gen_random_uuid(),
  organization_id    uuid not null references organizations (id) on delete cascade,
  name               text not null,
  kind               text not null check (kind in ('SLACK', 'DISCORD', 'EMAIL')),
  webhook_url_sealed text,
  -- the webhook URL's host, kept in clear so a reply can say where messages go
  webhook_host       text,
  recipients         jsonb not null default '[]'::jsonb,
  events             jsonb not null default '["BACKUP_FAILED","BACKUP_DRILL_FAILED","BACKUP_OVERDUE","DEPLOYMENT_FAILED","AGENT_RUN_FAILED"]'::jsonb,
  enabled            boolean not null default true,
  -- the last delivery that reached the channel, and why the last one that failed for good did not
  last_sent_at       timestamptz,
  last_error         text,
  created_at         timestamptz not null default now(),
  updated_at         timestamptz,
  check ((kind = 'EMAIL') = (webhook_url_sealed is null))
);
create unique index notification_channels_org_name_key on notification_channels (organization_id, lower(name));
create index notification_channels_org_idx on notification_channels (organization_id, created_at, id);

-- One incident: something that failed and has not recovered yet. A failure raised while an
-- incident of the same key is open only moves last_seen_at (no message); the caller resolves it
-- on the next success, and a later failure opens a new incident (one message each). The partial
-- unique index makes "at most one open incident per key" hold across processes.
create table notification_incidents (
  id              uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id) on delete cascade,
  incident_key    text not null,
  kind            text not null,
  title           text not null,
  body            text not null,
  link            text,
  occurrences     integer not null default 1,
  opened_at       timestamptz not null default now(),
  last_seen_at    timestamptz not null default now(),
  resolved_at     timestamptz,
  messages_sent   integer not null default 0
);
create unique index notification_incidents_open_key on notification_incidents (organization_id, incident_key) where resolved_at is null;
create index notification_incidents_org_idx on notification_incidents (organization_id, opened_at desc);
