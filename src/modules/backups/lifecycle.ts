// The backups' background work besides a single backup (decision 0735):
// - a restore (task backups.restore): IN_PLACE takes a SAFETY backup of the database first and
//   restores only once it SUCCEEDED; NEW_DATABASE waits (re-queued every few seconds, 15 minutes
//   at most) until the database the restore created is deployed, then feeds it the backup;
// - the minute visit (task backups.visit): backups whose worker stopped beating become FAILED;
//   each enabled policy's due slot queues one SCHEDULED backup (claimed once across processes)
//   and its drill slot a drill of the latest success; a database without a success within
//   1.5 × its schedule is OVERDUE (once, until the next success); retention deletes what the
//   grandfather-father-son rule no longer keeps.
import type { Db } from '../../db/db.ts';
import type { TaskQueue } from '../../queue/queue.ts';
import { overdueAfterMs, retentionVictims, slotDue, STALE_HEARTBEAT_MS } from './backups.rules.ts';
import * as repo from './backups.repo.ts';
import type { BackupsService } from './backups.service.ts';
import type { BackupEvents } from './events.ts';
import type { BackupRunner } from './runner.ts';
import type { Stores } from './stores.ts';

const NEW_DATABASE_WAIT_MS = 15 * 60_000;

export interface BackupLifecycleDeps {
  db: Db; queue: TaskQueue; stores: Stores; runner: BackupRunner; events: BackupEvents;
  backups: Pick<BackupsService, 'queueBackup' | 'safetyBackup'>;
  /** the deployment state of a database ('RUNNING' once deployed), null when it is gone */
  databaseState(id: string): Promise<{ state: string; deploymentStatus: string } | null>;
  logger: { warn(obj: object, msg: string): void };
}

export interface BackupLifecycle {
  restore(restoreId: string, signal: AbortSignal): Promise<void>;
  visit(now?: Date): Promise<void>;
}

export function createBackupLifecycle(deps: BackupLifecycleDeps): BackupLifecycle {
  const { db, runner } = deps;

  async function failRestore(r: repo.RestoreRow, message: string): Promise<void> {
    await repo.setRestore(db, r.id, { status: 'FAILED', error: message });
  }

  async function restoreInPlace(r: repo.RestoreRow, backup: repo.BackupRow, signal: AbortSignal): Promise<void> {
    const safety = await deps.backups.safetyBackup(r.database_id, r.organization_id);
    await repo.setRestore(db, r.id, { status: 'RUNNING', safetyBackupId: safety.id });
    const taken = await runner.take(safety.id, signal);
    if (taken?.status !== 'SUCCEEDED') {
      return failRestore(r, `the safety backup of the database failed, so nothing was restored: ${taken?.error ?? 'it did not finish'}`);
    }
    await runner.restoreInto(backup, r.database_id, signal);
    await repo.setRestore(db, r.id, { status: 'SUCCEEDED' });
  }

  async function restoreIntoNew(r: repo.RestoreRow, backup: repo.BackupRow, signal: AbortSignal): Promise<void> {
    const target = r.target_database_id ? await deps.databaseState(r.target_database_id) : null;
    if (!target) return failRestore(r, 'the database to restore into was deleted');
    if (/ERROR/.test(target.deploymentStatus)) return failRestore(r, `the new database could not be deployed (${target.deploymentStatus})`);
    if (target.state !== 'RUNNING') {
      if (Date.now() - r.created_at.getTime() > NEW_DATABASE_WAIT_MS) return failRestore(r, 'the new database was not running after 15 minutes');
      await deps.queue.enqueue(db, 'backups.restore', { restoreId: r.id }, { startAfter: new Date(Date.now() + 3000) });
      return;
    }
    await repo.setRestore(db, r.id, { status: 'RUNNING' });
    await runner.restoreInto(backup, r.target_database_id!, signal);
    await repo.setRestore(db, r.id, { status: 'SUCCEEDED' });
  }

  async function schedule(policy: repo.PolicyRow, now: Date): Promise<void> {
    const since = policy.last_run_at ?? policy.created_at;
    if (slotDue(policy.schedule, since, now) && await repo.claimPolicySlot(db, policy.database_id, 'last_run_at', policy.last_run_at, now)) {
      await deps.backups.queueBackup(policy.database_id, policy.organization_id, 'SCHEDULED');
    }
    const drillSince = policy.last_drill_at ?? policy.created_at;
    if (slotDue(policy.drill_schedule, drillSince, now) && await repo.claimPolicySlot(db, policy.database_id, 'last_drill_at', policy.last_drill_at, now)) {
      const latest = (await repo.succeededBackups(db, policy.database_id))[0];
      if (latest) await deps.queue.enqueue(db, 'backups.drill', { backupId: latest.id }, { singletonKey: latest.id });
    }
  }

  async function overdue(policy: repo.PolicyRow, now: Date): Promise<void> {
    const lastSuccess = (await repo.backupFacts(db, [policy.database_id]))[0]?.last_backup_at ?? null;
    const window = overdueAfterMs(policy.schedule);
    if (window === null) return;
    const reference = lastSuccess ?? policy.created_at;
    const late = now.getTime() - reference.getTime() > window;
    if (late && !policy.overdue_since) {
      await repo.setOverdue(db, policy.database_id, now);
      await deps.events.overdue(policy.database_id, lastSuccess, policy.schedule);
    } else if (!late && policy.overdue_since) {
      await repo.setOverdue(db, policy.database_id, null);
    }
  }

  async function retain(policy: repo.PolicyRow): Promise<void> {
    const scheduled = await repo.succeededBackups(db, policy.database_id, 'SCHEDULED');
    for (const id of retentionVictims(scheduled, policy)) {
      const b = scheduled.find((x) => x.id === id)!;
      try {
        const at = await deps.stores.holding(b);
        await at.store.remove(b.object_key);
        await repo.deleteBackup(db, b.id);
      } catch (err) {
        deps.logger.warn({ err, backupId: b.id }, 'backups: retention could not delete a backup (kept; tried again next minute)');
      }
    }
  }

  return {
    async restore(restoreId, signal) {
      const r = await repo.findRestore(db, restoreId);
      if (!r || r.status === 'SUCCEEDED' || r.status === 'FAILED') return;
      const backup = await repo.findBackup(db, r.backup_id);
      if (!backup || backup.status !== 'SUCCEEDED') return failRestore(r, 'the backup is gone');
      if (r.status === 'RUNNING' && r.mode === 'IN_PLACE') return failRestore(r, 'berth stopped while the restore ran; the safety backup holds the database as it was');
      try {
        if (r.mode === 'IN_PLACE') await restoreInPlace(r, backup, signal);
        else await restoreIntoNew(r, backup, signal);
      } catch (err) {
        await failRestore(r, (err as Error)?.message ?? String(err));
      }
    },

    async visit(now = new Date()) {
      for (const stale of await repo.staleBackups(db, new Date(now.getTime() - STALE_HEARTBEAT_MS))) {
        const failed = await repo.failBackup(db, stale.id, 'berth stopped while the backup ran (its worker stopped beating)');
        if (failed) {
          await (await deps.stores.holding(failed).catch(() => null))?.store.remove(failed.object_key).catch(() => undefined);
          await deps.events.backupFailed(failed);
        }
      }
      for (const policy of await repo.enabledPolicies(db)) {
        try {
          await schedule(policy, now);
          await overdue(policy, now);
          await retain(policy);
        } catch (err) {
          deps.logger.warn({ err, databaseId: policy.database_id }, 'backups: the visit of a policy failed');
        }
      }
    },
  };
}
