// How backups are heard of (decision 0735): each outcome is an organization webhook event
// (BACKUP_SUCCEEDED, BACKUP_FAILED, BACKUP_DRILL_FAILED, BACKUP_OVERDUE), a line in the database's
// log, and for failures a notification on the organization's channels: one incident per database
// and kind (a failure that repeats sends one message), resolved by the next success.
import type { Db } from '../../db/db.ts';
import type { Queryable } from '../../db/db.ts';
import type { TaskQueue } from '../../queue/queue.ts';
import type { EventKind } from '../../events/catalogue.ts';
import { emitEvent } from '../webhooks/emit.ts';
import type { BackupRow } from './backups.repo.ts';

/** what backups ask of the notification channels */
export interface BackupNotifier {
  raise(organizationId: string, incident: { key: string; kind: 'BACKUP_FAILED' | 'BACKUP_DRILL_FAILED' | 'BACKUP_OVERDUE'; title: string; text: string; link?: string }): Promise<unknown>;
  resolve(organizationId: string, key: string): Promise<unknown>;
}

interface DatabaseFacts { id: string; name: string; environment_id: string; project_id: string; organization_id: string }

export interface BackupEventsDeps {
  db: Db; queue: TaskQueue;
  notifier: BackupNotifier;
  findDatabase(id: string): Promise<DatabaseFacts | null>;
  eventScope(serviceId: string): Promise<{ projectName?: string | null; environmentMode?: string | null } | null>;
  serviceLog(tx: Queryable, serviceId: string, message: string): Promise<void>;
  /** the console's page of a database, for the notifications' link */
  consoleUrl(database: DatabaseFacts): string;
}

export interface BackupEvents {
  backupSucceeded(b: BackupRow): Promise<void>;
  backupFailed(b: BackupRow): Promise<void>;
  drillSucceeded(b: BackupRow): Promise<void>;
  drillFailed(b: BackupRow, message: string): Promise<void>;
  overdue(databaseId: string, lastSuccess: Date | null, schedule: string): Promise<void>;
}

const incident = (kind: string, databaseId: string) => `${kind}:${databaseId}`;

export function createBackupEvents(deps: BackupEventsDeps): BackupEvents {
  async function tell(kind: EventKind, databaseId: string, b: BackupRow | null, extra: { message: string | null; lastSuccess?: Date | null; log: string }): Promise<DatabaseFacts | null> {
    const database = await deps.findDatabase(databaseId);
    if (!database) return null;
    const scope = await deps.eventScope(databaseId);
    await deps.db.transaction(async (tx) => {
      await deps.serviceLog(tx, databaseId, extra.log);
      await emitEvent(tx, { queue: deps.queue }, {
        organizationId: database.organization_id, kind,
        ...(scope?.projectName ? { projectName: scope.projectName } : {}), ...(scope?.environmentMode ? { environmentMode: scope.environmentMode } : {}),
        payload: {
          backup_id: b?.id ?? null, backup_name: b?.name ?? null, trigger: b?.trigger ?? null,
          database_id: database.id, database_name: database.name, environment_id: database.environment_id, project_id: database.project_id,
          organization_id: database.organization_id, size: b?.size === null || b?.size === undefined ? null : Number(b.size), checksum: b?.checksum ?? null,
          message: extra.message, last_success_at: extra.lastSuccess?.toISOString() ?? null,
        },
      });
    });
    return database;
  }

  return {
    async backupSucceeded(b) {
      const db = await tell('BACKUP_SUCCEEDED', b.database_id, b, { message: null, log: `Backup "${b.name}" stored (${Number(b.size)} bytes, sha256 ${b.checksum?.slice(0, 12)}…, read back and checked)` });
      if (!db) return;
      await deps.notifier.resolve(db.organization_id, incident('BACKUP_FAILED', b.database_id));
      await deps.notifier.resolve(db.organization_id, incident('BACKUP_OVERDUE', b.database_id));
    },
    async backupFailed(b) {
      const db = await tell('BACKUP_FAILED', b.database_id, b, { message: b.error, log: `Backup "${b.name}" FAILED: ${b.error}` });
      if (!db) return;
      await deps.notifier.raise(db.organization_id, {
        key: incident('BACKUP_FAILED', b.database_id), kind: 'BACKUP_FAILED', link: deps.consoleUrl(db),
        title: `Backup of ${db.name} failed`, text: `The backup "${b.name}" of the database ${db.name} failed: ${b.error}`,
      });
    },
    async drillSucceeded(b) {
      const db = await deps.findDatabase(b.database_id);
      if (db) await deps.notifier.resolve(db.organization_id, incident('BACKUP_DRILL_FAILED', b.database_id));
    },
    async drillFailed(b, message) {
      const db = await tell('BACKUP_DRILL_FAILED', b.database_id, b, { message, log: `Restore drill of backup "${b.name}" FAILED: ${message}` });
      if (!db) return;
      await deps.notifier.raise(db.organization_id, {
        key: incident('BACKUP_DRILL_FAILED', b.database_id), kind: 'BACKUP_DRILL_FAILED', link: deps.consoleUrl(db),
        title: `The latest backup of ${db.name} could not be restored`,
        text: `The restore drill of the backup "${b.name}" of ${db.name} failed: ${message}. Until a drill succeeds, this database's backups are not known to restore.`,
      });
    },
    async overdue(databaseId, lastSuccess, schedule) {
      const since = lastSuccess ? `since ${lastSuccess.toISOString()}` : 'ever';
      const message = `No successful backup ${since}; the schedule "${schedule}" expects one sooner`;
      const db = await tell('BACKUP_OVERDUE', databaseId, null, { message, lastSuccess, log: `Backups are OVERDUE: ${message}` });
      if (!db) return;
      await deps.notifier.raise(db.organization_id, {
        key: incident('BACKUP_OVERDUE', databaseId), kind: 'BACKUP_OVERDUE', link: deps.consoleUrl(db),
        title: `Backups of ${db.name} are overdue`, text: `The database ${db.name}: ${message}.`,
      });
    },
  };
}
