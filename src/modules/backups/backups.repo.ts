// SQL for the backups module's tables: backup_storages, database_backups, backup_policies,
// backup_restores (migration 0030).
import type { Queryable } from '../../db/db.ts';

export type BackupStatus = 'QUEUED' | 'RUNNING' | 'SUCCEEDED' | 'FAILED';
export type BackupTrigger = 'MANUAL' | 'SCHEDULED' | 'SAFETY';

export interface StorageRow {
  organization_id: string; kind: 'LOCAL' | 'S3'; s3_endpoint: string | null; s3_region: string | null; s3_bucket: string | null;
  s3_prefix: string; s3_access_key_id: string | null; s3_secret_sealed: string | null; s3_force_path_style: boolean;
  archive_key_sealed: string; created_at: Date; updated_at: Date | null;
}

export interface BackupRow {
  id: string; organization_id: string; database_id: string; name: string; message: string; trigger: BackupTrigger;
  status: BackupStatus; storage: 'LOCAL' | 'S3'; location: string; object_key: string; size: string | number | null;
  checksum: string | null; error: string | null; heartbeat_at: Date | null; started_at: Date | null; finished_at: Date | null;
  verified_at: Date | null; drill_counts: Record<string, number> | null; drill_error: string | null; created_at: Date; updated_at: Date | null;
}

export interface PolicyRow {
  database_id: string; organization_id: string; enabled: boolean; schedule: string; keep_daily: number; keep_weekly: number;
  keep_monthly: number; drill_schedule: string; last_run_at: Date | null; last_drill_at: Date | null; overdue_since: Date | null;
  created_at: Date; updated_at: Date | null;
}

export interface RestoreRow {
  id: string; organization_id: string; backup_id: string; database_id: string; mode: 'IN_PLACE' | 'NEW_DATABASE';
  target_database_id: string | null; safety_backup_id: string | null; status: BackupStatus; error: string | null;
  created_at: Date; finished_at: Date | null;
}

// ---- storage
export async function findStorage(db: Queryable, organizationId: string): Promise<StorageRow | null> {
  return (await db.query<StorageRow>('select * from backup_storages where organization_id = $1', [organizationId]))[0] ?? null;
}

/** the organization's row, made LOCAL with `archiveKeySealed` when it has none (a concurrent maker wins; its key is returned) */
export async function ensureStorage(db: Queryable, organizationId: string, archiveKeySealed: string): Promise<StorageRow> {
  await db.query('insert into backup_storages (organization_id, archive_key_sealed) values ($1, $2) on conflict (organization_id) do nothing',
    [organizationId, archiveKeySealed]);
  return (await findStorage(db, organizationId))!;
}

export async function updateStorage(db: Queryable, organizationId: string, v: {
  kind: 'LOCAL' | 'S3'; endpoint: string | null; region: string | null; bucket: string | null; prefix: string;
  accessKeyId: string | null; secretSealed: string | null; forcePathStyle: boolean;
}): Promise<void> {
  await db.query(`update backup_storages set kind = $2, s3_endpoint = $3, s3_region = $4, s3_bucket = $5, s3_prefix = $6,
    s3_access_key_id = $7, s3_secret_sealed = $8, s3_force_path_style = $9, updated_at = now() where organization_id = $1`,
  [organizationId, v.kind, v.endpoint, v.region, v.bucket, v.prefix, v.accessKeyId, v.secretSealed, v.forcePathStyle]);
}

// ---- backups
export async function insertBackup(db: Queryable, v: {
  organizationId: string; databaseId: string; name: string; message: string; trigger: BackupTrigger;
  storage: 'LOCAL' | 'S3'; location: string; objectKey: (id: string) => string;
}): Promise<BackupRow> {
  const [{ id }] = await db.query<{ id: string }>('select gen_random_uuid() as id') as [{ id: string }];
  return (await db.query<BackupRow>(`insert into database_backups (id, organization_id, database_id, name, message, trigger, storage, location, object_key)
    values ($1, $2, $3, $4, $5, $6, $7, $8, $9) returning *`,
  [id, v.organizationId, v.databaseId, v.name, v.message, v.trigger, v.storage, v.location, v.objectKey(id)]))[0]!;
}

export async function findBackup(db: Queryable, id: string): Promise<BackupRow | null> {
  return (await db.query<BackupRow>('select * from database_backups where id = $1', [id]))[0] ?? null;
}

/** newest first; after `startId` (the cursor Qovery's list takes) when given */
export async function listBackups(db: Queryable, databaseId: string, limit: number, startId?: string): Promise<BackupRow[]> {
  if (startId) {
    return db.query<BackupRow>(`select b.* from database_backups b, database_backups s
      where s.id = $2 and b.database_id = $1 and (b.created_at, b.id) < (s.created_at, s.id)
      order by b.created_at desc, b.id desc limit $3`, [databaseId, startId, limit]);
  }
  return db.query<BackupRow>('select * from database_backups where database_id = $1 order by created_at desc, id desc limit $2', [databaseId, limit]);
}

/** the successful backups of a database, newest first */
export async function succeededBackups(db: Queryable, databaseId: string, trigger?: BackupTrigger): Promise<BackupRow[]> {
  return db.query<BackupRow>(`select * from database_backups where database_id = $1 and status = 'SUCCEEDED' ${trigger ? 'and trigger = $2' : ''}
    order by created_at desc, id desc`, trigger ? [databaseId, trigger] : [databaseId]);
}

/** QUEUED → RUNNING; false when it is not QUEUED any more (another attempt took it, or it was deleted) */
export async function startBackup(db: Queryable, id: string): Promise<boolean> {
  return (await db.query(`update database_backups set status = 'RUNNING', started_at = now(), heartbeat_at = now(), updated_at = now()
    where id = $1 and status = 'QUEUED' returning id`, [id])).length === 1;
}

export async function beat(db: Queryable, id: string): Promise<void> {
  await db.query("update database_backups set heartbeat_at = now() where id = $1 and status = 'RUNNING'", [id]);
}

export async function succeedBackup(db: Queryable, id: string, v: { size: number; checksum: string }): Promise<boolean> {
  return (await db.query(`update database_backups set status = 'SUCCEEDED', size = $2, checksum = $3, error = null, finished_at = now(), updated_at = now()
    where id = $1 and status = 'RUNNING' returning id`, [id, v.size, v.checksum])).length === 1;
}

/** a QUEUED or RUNNING backup becomes FAILED (a finished one stays as it is) */
export async function failBackup(db: Queryable, id: string, error: string): Promise<BackupRow | null> {
  return (await db.query<BackupRow>(`update database_backups set status = 'FAILED', error = $2, finished_at = now(), updated_at = now()
    where id = $1 and status in ('QUEUED', 'RUNNING') returning *`, [id, error]))[0] ?? null;
}

/** RUNNING backups whose worker stopped beating before `before` */
export async function staleBackups(db: Queryable, before: Date): Promise<BackupRow[]> {
  return db.query<BackupRow>("select * from database_backups where status = 'RUNNING' and heartbeat_at < $1", [before]);
}

export async function recordDrill(db: Queryable, id: string, v: { counts: Record<string, number> | null; error: string | null }): Promise<void> {
  await db.query(`update database_backups set drill_counts = $2::jsonb, drill_error = $3, verified_at = case when $3::text is null then now() else verified_at end,
    updated_at = now() where id = $1`, [id, v.counts === null ? null : JSON.stringify(v.counts), v.error]);
}

export async function deleteBackup(db: Queryable, id: string): Promise<void> {
  await db.query('delete from database_backups where id = $1', [id]);
}

/** the last successful backup and the last drill-verified one of each database */
export async function backupFacts(db: Queryable, databaseIds: readonly string[]): Promise<Array<{ database_id: string; last_backup_at: Date | null; verified_at: Date | null }>> {
  if (databaseIds.length === 0) return [];
  return db.query(`select database_id, max(finished_at) filter (where status = 'SUCCEEDED') as last_backup_at, max(verified_at) as verified_at
    from database_backups where database_id = any($1::uuid[]) group by database_id`, [databaseIds]);
}

// ---- policies
export async function findPolicy(db: Queryable, databaseId: string): Promise<PolicyRow | null> {
  return (await db.query<PolicyRow>('select * from backup_policies where database_id = $1', [databaseId]))[0] ?? null;
}

export async function upsertPolicy(db: Queryable, v: {
  databaseId: string; organizationId: string; enabled: boolean; schedule: string; keepDaily: number; keepWeekly: number; keepMonthly: number; drillSchedule: string;
}): Promise<void> {
  await db.query(`insert into backup_policies (database_id, organization_id, enabled, schedule, keep_daily, keep_weekly, keep_monthly, drill_schedule, last_run_at)
    values ($1, $2, $3, $4, $5, $6, $7, $8, now())
    on conflict (database_id) do update set enabled = $3, schedule = $4, keep_daily = $5, keep_weekly = $6, keep_monthly = $7, drill_schedule = $8,
      last_run_at = case when backup_policies.schedule = $4 then backup_policies.last_run_at else now() end, updated_at = now()`,
  [v.databaseId, v.organizationId, v.enabled, v.schedule, v.keepDaily, v.keepWeekly, v.keepMonthly, v.drillSchedule]);
}

export async function deletePolicy(db: Queryable, databaseId: string): Promise<boolean> {
  return (await db.query('delete from backup_policies where database_id = $1 returning database_id', [databaseId])).length === 1;
}

export async function enabledPolicies(db: Queryable): Promise<PolicyRow[]> {
  return db.query<PolicyRow>('select * from backup_policies where enabled order by database_id');
}

/**
 * claims a slot: true once per slot across processes (the column moves only if it is still what was
 * read). PostgreSQL keeps microseconds and a Date milliseconds: "what was read" is within 1 ms.
 */
export async function claimPolicySlot(db: Queryable, databaseId: string, column: 'last_run_at' | 'last_drill_at', seen: Date | null, now: Date): Promise<boolean> {
  return (await db.query(`update backup_policies set ${column} = $3 where database_id = $1
    and (case when $2::timestamptz is null then ${column} is null
      else ${column} between $2::timestamptz - interval '1 millisecond' and $2::timestamptz + interval '1 millisecond' end)
    returning database_id`, [databaseId, seen, now])).length === 1;
}

export async function setOverdue(db: Queryable, databaseId: string, since: Date | null): Promise<void> {
  await db.query('update backup_policies set overdue_since = $2 where database_id = $1', [databaseId, since]);
}

// ---- restores
export async function insertRestore(db: Queryable, v: {
  organizationId: string; backupId: string; databaseId: string; mode: RestoreRow['mode']; targetDatabaseId: string | null;
}): Promise<RestoreRow> {
  return (await db.query<RestoreRow>(`insert into backup_restores (organization_id, backup_id, database_id, mode, target_database_id)
    values ($1, $2, $3, $4, $5) returning *`, [v.organizationId, v.backupId, v.databaseId, v.mode, v.targetDatabaseId]))[0]!;
}

export async function findRestore(db: Queryable, id: string): Promise<RestoreRow | null> {
  return (await db.query<RestoreRow>('select * from backup_restores where id = $1', [id]))[0] ?? null;
}

export async function listRestores(db: Queryable, backupId: string): Promise<RestoreRow[]> {
  return db.query<RestoreRow>('select * from backup_restores where backup_id = $1 order by created_at desc, id desc', [backupId]);
}

export async function setRestore(db: Queryable, id: string, v: { status: BackupStatus; error?: string | null; safetyBackupId?: string | null }): Promise<void> {
  await db.query(`update backup_restores set status = $2, error = $3, safety_backup_id = coalesce($4, safety_backup_id),
    finished_at = case when $2 in ('SUCCEEDED', 'FAILED') then now() else null end where id = $1`,
  [id, v.status, v.error ?? null, v.safetyBackupId ?? null]);
}

/** a restore into this database that has not finished (a restore from it into a new database does not count: it only reads) */
export async function activeRestore(db: Queryable, databaseId: string): Promise<RestoreRow | null> {
  return (await db.query<RestoreRow>(`select * from backup_restores where target_database_id = $1 and status in ('QUEUED', 'RUNNING') limit 1`,
    [databaseId]))[0] ?? null;
}
