// Request and response shapes of database backups: Qovery's Backup, BackupRequest and
// BackupPaginatedResponseList (its SDK's BackupsApi works unchanged), plus berth's own: what a
// backup holds (size, checksum, where it is kept, when a drill last restored it), restores, a
// database's backup policy and an organization's backup storage.
import { Type, type Static } from 'typebox';
import { NullableString, Timestamp, Uuid } from '../../http/schemas.ts';

const Closed = { additionalProperties: { not: {} } } as const;
const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);
const Status = Type.Union([Type.Literal('QUEUED'), Type.Literal('RUNNING'), Type.Literal('SUCCEEDED'), Type.Literal('FAILED')], {
  description: 'QUEUED, RUNNING, SUCCEEDED (stored, read back and its checksum matched) or FAILED (error says why; nothing is kept)',
});

export const BackupRequest = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255 }),
  message: Type.Optional(Type.String({ maxLength: 2000 })),
}, Closed);
export type BackupRequest = Static<typeof BackupRequest>;

export const Backup = Type.Object({
  id: Uuid,
  created_at: Timestamp,
  updated_at: Timestamp,
  name: Type.String(),
  message: Type.String(),
  status: Status,
  trigger: Type.Union([Type.Literal('MANUAL'), Type.Literal('SCHEDULED'), Type.Literal('SAFETY')], { description: 'SAFETY: taken by berth before a restore into the same database' }),
  database_id: Uuid,
  size: Type.Union([Type.Integer(), Type.Null()], { description: 'bytes stored (compressed and encrypted)' }),
  checksum: Type.Union([Type.String(), Type.Null()], { description: 'SHA-256 of the stored object, hex' }),
  storage: Type.String({ description: 'where it is kept: LOCAL (the berth host) or s3://bucket/prefix at endpoint' }),
  error: NullableString,
  finished_at: NullableTimestamp,
  verified_at: Type.Union([Timestamp, Type.Null()], { description: 'when a restore drill last restored it into a throwaway database' }),
  drill: Type.Union([Type.Object({
    counts: Type.Record(Type.String(), Type.Integer(), { description: 'tables → rows, collections → documents, or keys' }),
    error: NullableString,
  }), Type.Null()]),
});
export type Backup = Static<typeof Backup>;

export const BackupList = Type.Object({
  page: Type.Integer(), page_size: Type.Integer(), results: Type.Array(Backup),
});

export const BackupListQuery = Type.Object({
  startId: Type.Optional(Type.String({ format: 'uuid', description: 'the backups after this one (newest first)' })),
});

export const RestoreRequest = Type.Object({
  mode: Type.Optional(Type.Union([Type.Literal('NEW_DATABASE'), Type.Literal('IN_PLACE')], {
    default: 'NEW_DATABASE',
    description: 'NEW_DATABASE: into a new database service beside this one (the original is untouched); IN_PLACE: replaces this database\'s contents, after a SAFETY backup of it',
  })),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 63, description: 'NEW_DATABASE: the new database\'s name (default <name>-restored-<date>)' })),
}, Closed);
export type RestoreRequest = Static<typeof RestoreRequest>;

export const Restore = Type.Object({
  id: Uuid,
  created_at: Timestamp,
  backup_id: Uuid,
  database_id: Uuid,
  mode: Type.String(),
  target_database_id: Type.Union([Uuid, Type.Null()], { description: 'the database restored into' }),
  safety_backup_id: Type.Union([Uuid, Type.Null()], { description: 'IN_PLACE: the backup taken of the database first' }),
  status: Status,
  error: NullableString,
  finished_at: NullableTimestamp,
});
export type Restore = Static<typeof Restore>;

export const BackupPolicyRequest = Type.Object({
  enabled: Type.Optional(Type.Boolean({ default: true })),
  schedule: Type.String({ description: 'cron (UTC), at most hourly, e.g. "0 3 * * *"' }),
  keep_daily: Type.Optional(Type.Integer({ minimum: 0, maximum: 366, default: 7 })),
  keep_weekly: Type.Optional(Type.Integer({ minimum: 0, maximum: 260, default: 4 })),
  keep_monthly: Type.Optional(Type.Integer({ minimum: 0, maximum: 120, default: 6 })),
  drill_schedule: Type.Optional(Type.String({ default: '0 4 * * 0', description: 'cron (UTC) of the restore drill of the latest backup (weekly by default)' })),
}, Closed);
export type BackupPolicyRequest = Static<typeof BackupPolicyRequest>;

export const BackupPolicy = Type.Object({
  database_id: Uuid,
  enabled: Type.Boolean(),
  schedule: Type.String(),
  keep_daily: Type.Integer(),
  keep_weekly: Type.Integer(),
  keep_monthly: Type.Integer(),
  drill_schedule: Type.String(),
  next_backup_at: NullableTimestamp,
  next_drill_at: NullableTimestamp,
  last_backup_at: Type.Union([Timestamp, Type.Null()], { description: 'the last successful backup' }),
  last_verified_at: Type.Union([Timestamp, Type.Null()], { description: 'the last backup a drill restored' }),
  overdue_since: Type.Union([Timestamp, Type.Null()], { description: 'no success within 1.5 × the schedule since then' }),
});
export type BackupPolicy = Static<typeof BackupPolicy>;

export const BackupStorageRequest = Type.Object({
  kind: Type.Union([Type.Literal('LOCAL'), Type.Literal('S3')]),
  s3: Type.Optional(Type.Object({
    endpoint: Type.Optional(Type.Union([Type.String({ format: 'uri' }), Type.Null()], { description: 'an S3-compatible server; none: AWS' })),
    region: Type.Optional(Type.String({ minLength: 1, default: 'us-east-1' })),
    bucket: Type.String({ minLength: 3, maxLength: 63 }),
    prefix: Type.Optional(Type.String({ maxLength: 200, default: '' })),
    access_key_id: Type.String({ minLength: 1 }),
    secret_access_key: Type.Optional(Type.String({ minLength: 1, description: 'write-only; omitted: the stored one is kept' })),
    force_path_style: Type.Optional(Type.Boolean({ default: true })),
  }, Closed)),
}, Closed);
export type BackupStorageRequest = Static<typeof BackupStorageRequest>;

export const BackupStorage = Type.Object({
  kind: Type.String(),
  location: Type.String({ description: 'LOCAL, or s3://bucket/prefix at endpoint' }),
  s3: Type.Union([Type.Object({
    endpoint: NullableString, region: Type.String(), bucket: Type.String(), prefix: Type.String(), access_key_id: Type.String(),
    has_secret_access_key: Type.Boolean(), force_path_style: Type.Boolean(),
  }), Type.Null()]),
  updated_at: NullableTimestamp,
});
export type BackupStorage = Static<typeof BackupStorage>;

export const StorageCheck = Type.Object({ ok: Type.Boolean(), message: NullableString });
