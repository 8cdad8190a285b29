// Database backups as the API offers them (issue 39, decision 0735): Qovery's take, list and
// delete (its SDK's BackupsApi), and berth's restore (into a new database beside the original by
// default, or in place after a SAFETY backup), download of the native dump, restore drills on
// demand, and a database's policy (schedule and grandfather-father-son retention). Who may:
// read lists; write takes, deletes, restores into a new database and sets the policy; manage
// restores in place and downloads (the data itself). The work runs in tasks (runner.ts).
import type { Readable } from 'node:stream';
import type { Db } from '../../db/db.ts';
import { badRequest, conflict, notFound } from '../../lib/errors.ts';
import { iso, isoRequired } from '../../lib/text.ts';
import type { TaskQueue } from '../../queue/queue.ts';
import type { Principal } from '../access/principal.ts';
import type { DeploymentsService } from '../deployments/deployments.service.ts';
import type { ServicesService } from '../services/services.service.ts';
import { databaseHandler } from '../services/databases/database.handler.ts';
import type { DatabaseRequest } from '../services/databases/database.schemas.ts';
import { automaticName, backupRefusal, downloadName, nextSlot, objectKey, restoredName, scheduleProblem } from './backups.rules.ts';
import * as repo from './backups.repo.ts';
import type { Backup, BackupPolicy, BackupPolicyRequest, BackupRequest, Restore, RestoreRequest } from './backups.schemas.ts';
import type { BackupRunner } from './runner.ts';
import type { Stores } from './stores.ts';

const PAGE_SIZE = 20;

export interface BackupsService {
  take(p: Principal, databaseId: string, body: BackupRequest): Promise<Backup>;
  list(p: Principal, databaseId: string, startId?: string): Promise<{ page: number; page_size: number; results: Backup[] }>;
  get(p: Principal, databaseId: string, backupId: string): Promise<Backup>;
  remove(p: Principal, databaseId: string, backupId: string): Promise<void>;
  restore(p: Principal, databaseId: string, backupId: string, body: RestoreRequest): Promise<Restore>;
  restores(p: Principal, databaseId: string, backupId: string): Promise<{ results: Restore[] }>;
  drill(p: Principal, databaseId: string, backupId: string): Promise<Backup>;
  download(p: Principal, databaseId: string, backupId: string): Promise<{ stream: Readable; filename: string }>;
  /** null: none set (backups only when asked) */
  policy(p: Principal, databaseId: string): Promise<BackupPolicy | null>;
  setPolicy(p: Principal, databaseId: string, body: BackupPolicyRequest): Promise<BackupPolicy>;
  removePolicy(p: Principal, databaseId: string): Promise<void>;
  /** for the scheduler: a backup of a database taken by berth itself, queued (a task takes it) */
  queueBackup(databaseId: string, organizationId: string, trigger: 'SCHEDULED', name?: string): Promise<repo.BackupRow>;
  /** for an in-place restore: the SAFETY backup's row, QUEUED, taken by the restore itself (no task) */
  safetyBackup(databaseId: string, organizationId: string): Promise<repo.BackupRow>;
}

export interface BackupsDeps {
  db: Db; queue: TaskQueue; stores: Stores; runner: BackupRunner;
  services: Pick<ServicesService, 'authorizedRow' | 'create'>;
  deployments: Pick<DeploymentsService, 'act'>;
  /** whether the running engine can take dumps (null) or why not */
  engineRefusal(): string | null;
}

function presentBackup(b: repo.BackupRow): Backup {
  return {
    id: b.id, created_at: isoRequired(b.created_at), updated_at: isoRequired(b.updated_at ?? b.created_at), name: b.name, message: b.message,
    status: b.status, trigger: b.trigger, database_id: b.database_id, size: b.size === null ? null : Number(b.size), checksum: b.checksum,
    storage: b.location, error: b.error, finished_at: iso(b.finished_at), verified_at: iso(b.verified_at),
    drill: b.drill_counts || b.drill_error ? { counts: b.drill_counts ?? {}, error: b.drill_error } : null,
  };
}

function presentRestore(r: repo.RestoreRow): Restore {
  return {
    id: r.id, created_at: isoRequired(r.created_at), backup_id: r.backup_id, database_id: r.database_id, mode: r.mode,
    target_database_id: r.target_database_id, safety_backup_id: r.safety_backup_id, status: r.status, error: r.error, finished_at: iso(r.finished_at),
  };
}

export function createBackupsService(deps: BackupsDeps): BackupsService {
  const { db, queue, stores } = deps;

  async function database(p: Principal, id: string, action: 'read' | 'write' | 'manage') {
    return deps.services.authorizedRow(p, id, 'DATABASE', 'Database', action);
  }

  async function backupOf(databaseId: string, backupId: string): Promise<repo.BackupRow> {
    const b = await repo.findBackup(db, backupId);
    if (!b || b.database_id !== databaseId) throw notFound('Backup');
    return b;
  }

  function succeeded(b: repo.BackupRow, what: string): void {
    if (b.status !== 'SUCCEEDED') throw conflict(`The backup is ${b.status}; only a SUCCEEDED backup can be ${what}`);
  }

  async function queueBackup(databaseId: string, organizationId: string, trigger: repo.BackupTrigger, name: string, message = ''): Promise<repo.BackupRow> {
    const at = await stores.current(organizationId);
    return db.transaction(async (tx) => {
      const row = await repo.insertBackup(tx, {
        organizationId, databaseId, name, message, trigger, storage: at.kind, location: at.location,
        objectKey: (id) => objectKey(organizationId, databaseId, id),
      });
      // a SAFETY backup is taken by the restore that asked for it, in its own task
      if (trigger !== 'SAFETY') await queue.enqueue(tx, 'backups.take', { backupId: row.id });
      return row;
    });
  }

  function presentPolicy(policy: repo.PolicyRow, facts: { last_backup_at: Date | null; verified_at: Date | null } | undefined): BackupPolicy {
    const now = new Date();
    return {
      database_id: policy.database_id, enabled: policy.enabled, schedule: policy.schedule, keep_daily: policy.keep_daily, keep_weekly: policy.keep_weekly,
      keep_monthly: policy.keep_monthly, drill_schedule: policy.drill_schedule,
      next_backup_at: policy.enabled ? iso(nextSlot(policy.schedule, now)) : null,
      next_drill_at: policy.enabled ? iso(nextSlot(policy.drill_schedule, now)) : null,
      last_backup_at: iso(facts?.last_backup_at ?? null), last_verified_at: iso(facts?.verified_at ?? null), overdue_since: iso(policy.overdue_since),
    };
  }

  return {
    queueBackup: (databaseId, organizationId, trigger, name) => queueBackup(databaseId, organizationId, trigger, name ?? automaticName(trigger, new Date())),
    safetyBackup: (databaseId, organizationId) => queueBackup(databaseId, organizationId, 'SAFETY', automaticName('SAFETY', new Date())),

    async take(p, databaseId, body) {
      const { row } = await database(p, databaseId, 'write');
      const refusal = backupRefusal({ mode: row.spec.mode as string | undefined, type: row.type }) ?? deps.engineRefusal();
      if (refusal) throw badRequest(refusal);
      if (row.state === 'STOPPED' || row.deployment_status === 'NEVER_DEPLOYED') throw conflict('The database is not running: deploy it before taking a backup');
      return presentBackup(await queueBackup(databaseId, row.organization_id, 'MANUAL', body.name, body.message ?? ''));
    },

    async list(p, databaseId, startId) {
      await database(p, databaseId, 'read');
      const rows = await repo.listBackups(db, databaseId, PAGE_SIZE, startId);
      return { page: 1, page_size: PAGE_SIZE, results: rows.map(presentBackup) };
    },

    async get(p, databaseId, backupId) {
      await database(p, databaseId, 'read');
      return presentBackup(await backupOf(databaseId, backupId));
    },

    async remove(p, databaseId, backupId) {
      await database(p, databaseId, 'write');
      const b = await backupOf(databaseId, backupId);
      if (b.status === 'RUNNING') throw conflict('The backup is RUNNING; delete it once it has finished');
      if (b.status === 'SUCCEEDED') {
        const at = await stores.holding(b);
        await at.store.remove(b.object_key);
      }
      await repo.deleteBackup(db, b.id);
    },

    async restore(p, databaseId, backupId, body) {
      const mode = body.mode ?? 'NEW_DATABASE';
      const { row, env } = await database(p, databaseId, mode === 'IN_PLACE' ? 'manage' : 'write');
      const b = await backupOf(databaseId, backupId);
      succeeded(b, 'restored');
      await stores.holding(b);
      const refusal = deps.engineRefusal();
      if (refusal) throw badRequest(refusal);
      if (mode === 'IN_PLACE') {
        if (await repo.activeRestore(db, databaseId)) throw conflict('A restore of this database is already under way');
        if (body.name !== undefined) throw badRequest('name is for NEW_DATABASE restores; IN_PLACE keeps the database');
      }
      let targetId: string | null = null;
      if (mode === 'NEW_DATABASE') {
        const spec = row.spec as Record<string, unknown>;
        const request = {
          name: body.name ?? restoredName(row.name, new Date()), type: spec.type, version: spec.version, mode: spec.mode ?? 'CONTAINER',
          accessibility: 'PRIVATE', cpu: spec.cpu, memory: spec.memory, storage: spec.storage,
        } as DatabaseRequest;
        const created = await deps.services.create(p, env.environmentId, databaseHandler, request) as { id: string };
        targetId = created.id;
        await deps.deployments.act(p, targetId, 'DATABASE', 'Database', 'DEPLOY');
      }
      const restore = await db.transaction(async (tx) => {
        const r = await repo.insertRestore(tx, { organizationId: row.organization_id, backupId, databaseId, mode, targetDatabaseId: targetId ?? databaseId });
        await queue.enqueue(tx, 'backups.restore', { restoreId: r.id });
        return r;
      });
      return presentRestore(restore);
    },

    async restores(p, databaseId, backupId) {
      await database(p, databaseId, 'read');
      await backupOf(databaseId, backupId);
      return { results: (await repo.listRestores(db, backupId)).map(presentRestore) };
    },

    async drill(p, databaseId, backupId) {
      await database(p, databaseId, 'write');
      const b = await backupOf(databaseId, backupId);
      succeeded(b, 'drilled');
      const refusal = deps.engineRefusal();
      if (refusal) throw badRequest(refusal);
      await queue.enqueue(db, 'backups.drill', { backupId }, { singletonKey: backupId });
      return presentBackup(b);
    },

    async download(p, databaseId, backupId) {
      const { row } = await database(p, databaseId, 'manage');
      const b = await backupOf(databaseId, backupId);
      succeeded(b, 'downloaded');
      return { stream: await deps.runner.read(b), filename: downloadName(row.name, String(row.spec.type), b.created_at) };
    },

    async policy(p, databaseId) {
      await database(p, databaseId, 'read');
      const policy = await repo.findPolicy(db, databaseId);
      if (!policy) return null;
      return presentPolicy(policy, (await repo.backupFacts(db, [databaseId]))[0]);
    },

    async setPolicy(p, databaseId, body) {
      const { row } = await database(p, databaseId, 'write');
      const refusal = backupRefusal({ mode: row.spec.mode as string | undefined, type: row.type });
      if (refusal) throw badRequest(refusal);
      const problem = scheduleProblem(body.schedule, 'schedule') ?? scheduleProblem(body.drill_schedule ?? '0 4 * * 0', 'drill_schedule');
      if (problem) throw badRequest(problem);
      await repo.upsertPolicy(db, {
        databaseId, organizationId: row.organization_id, enabled: body.enabled ?? true, schedule: body.schedule.trim(),
        keepDaily: body.keep_daily ?? 7, keepWeekly: body.keep_weekly ?? 4, keepMonthly: body.keep_monthly ?? 6, drillSchedule: (body.drill_schedule ?? '0 4 * * 0').trim(),
      });
      return presentPolicy((await repo.findPolicy(db, databaseId))!, (await repo.backupFacts(db, [databaseId]))[0]);
    },

    async removePolicy(p, databaseId) {
      await database(p, databaseId, 'write');
      if (!await repo.deletePolicy(db, databaseId)) throw notFound('Backup policy');
    },
  };
}
