-- Backups of the databases berth runs, their policies and where they are kept (issue 39,
-- decision 0735).
--
-- Where an organization's backups go: the berth host's BACKUP_DIR (LOCAL, the default when the
-- organization has no row) or an S3-compatible bucket (its secret sealed, never returned). The
-- archive key encrypts every backup of the organization (AES-256-GCM, framed); it is sealed with
-- berth's own key and made once, with the row.
create table backup_storages (
  organization_id     uuid primary key references organizations (id) on delete cascade,
  kind                text not null default 'LOCAL' check (kind in ('LOCAL', 'S3')),
  s3_endpoint         text,
  s3_region           text,
  s3_bucket           text,
  s3_prefix           text not null default '',
  s3_access_key_id    text,
  s3_secret_sealed    text,
  s3_force_path_style boolean not null default true,
  archive_key_sealed  text not null,
  created_at          timestamptz not null default now(),
  updated_at          timestamptz
);

-- One backup of one database. QUEUED → RUNNING → SUCCEEDED (size, checksum of the stored object,
-- read back and checked) or FAILED (`error`); a RUNNING one whose worker stopped beating is made
-- FAILED by the minute visit, never left looking done. `location` names the store it went to
-- (LOCAL, or the bucket and endpoint), so a backup is reached only from there.
create table database_backups (
  id                uuid primary key default gen_random_uuid(),
  organization_id   uuid not null references organizations (id) on delete cascade,
  database_id       uuid not null references services (id) on delete cascade,
  name              text not null,
  message           text not null default '',
  trigger           text not null check (trigger in ('MANUAL', 'SCHEDULED', 'SAFETY')),
  status            text not null default 'QUEUED' check (status in ('QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED')),
  storage           text not null check (storage in ('LOCAL', 'S3')),
  location          text not null,
  object_key        text not null,
  size              bigint,
  checksum          text,
  error             text,
  heartbeat_at      timestamptz,
  started_at        timestamptz,
  finished_at       timestamptz,
  verified_at       timestamptz,
  drill_counts      jsonb,
  drill_error       text,
  created_at        timestamptz not null default now(),
  updated_at        timestamptz
);
create index database_backups_database_idx on database_backups (database_id, created_at desc, id);
create index database_backups_running_idx on database_backups (status, heartbeat_at);

-- A database's schedule and grandfather-father-son retention (none: backups only when asked).
-- The drill restores the latest successful backup into a throwaway container on its own schedule.
create table backup_policies (
  database_id       uuid primary key references services (id) on delete cascade,
  organization_id   uuid not null references organizations (id) on delete cascade,
  enabled           boolean not null default true,
  schedule          text not null,
  keep_daily        integer not null default 7 check (keep_daily >= 0),
  keep_weekly       integer not null default 4 check (keep_weekly >= 0),
  keep_monthly      integer not null default 6 check (keep_monthly >= 0),
  drill_schedule    text not null default '0 4 * * 0',
  last_run_at       timestamptz,
  last_drill_at     timestamptz,
  overdue_since     timestamptz,
  created_at        timestamptz not null default now(),
  updated_at        timestamptz
);

-- A restore: into the same database (after a SAFETY backup of it) or into a new database service
-- beside it (NEW_DATABASE, the default). QUEUED → RUNNING → SUCCEEDED | FAILED.
create table backup_restores (
  id                  uuid primary key default gen_random_uuid(),
  organization_id     uuid not null references organizations (id) on delete cascade,
  backup_id           uuid not null references database_backups (id) on delete cascade,
  database_id         uuid not null references services (id) on delete cascade,
  mode                text not null check (mode in ('IN_PLACE', 'NEW_DATABASE')),
  target_database_id  uuid references services (id) on delete set null,
  safety_backup_id    uuid references database_backups (id) on delete set null,
  status              text not null default 'QUEUED' check (status in ('QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED')),
  error               text,
  created_at          timestamptz not null default now(),
  finished_at         timestamptz
);
create index backup_restores_backup_idx on backup_restores (backup_id, created_at desc);
