// The backups module's parts built together for the composition root (src/services.ts): the
// stores, the events, the runner of single backups and drills, the API's services and the
// background lifecycle, each given exactly what it needs.
import type { Db, Queryable } from '../../db/db.ts';
import type { DatabaseBackups } from '../../engine/index.ts';
import type { Sealer } from '../../lib/crypto.ts';
import type { TaskQueue } from '../../queue/queue.ts';
import type { DeploymentsService } from '../deployments/deployments.service.ts';
import type { OrganizationsService } from '../organizations/organizations.service.ts';
import type { ServicesService } from '../services/services.service.ts';
import { createBackupsService, type BackupsService } from './backups.service.ts';
import { createBackupEvents, type BackupNotifier } from './events.ts';
import { createBackupLifecycle, type BackupLifecycle } from './lifecycle.ts';
import { createBackupRunner, type BackupRunner } from './runner.ts';
import { createBackupStorageService, type BackupStorageService } from './storage.service.ts';
import { createStores } from './stores.ts';
import { databaseDriverService } from './target.ts';

export interface BackupParts {
  backups: BackupsService;
  backupStorage: BackupStorageService;
  backupRunner: BackupRunner;
  backupLifecycle: BackupLifecycle;
}

export interface BackupPartsDeps {
  db: Db; sealer: Sealer; queue: TaskQueue;
  backupDir: string; allowPrivateEndpoints: boolean; publicUrl: string;
  engine: { readonly name: string; readonly real: boolean; readonly databaseBackups?: DatabaseBackups };
  services: Pick<ServicesService, 'authorizedRow' | 'create' | 'findRow'>;
  deployments: Pick<DeploymentsService, 'act'>;
  organizations: Pick<OrganizationsService, 'authorize'>;
  notifier: BackupNotifier;
  eventScope(serviceId: string): Promise<{ projectName?: string | null; environmentMode?: string | null } | null>;
  serviceLog(tx: Queryable, serviceId: string, message: string): Promise<void>;
  logger: { warn(obj: object, msg: string): void };
}

export function createBackupParts(deps: BackupPartsDeps): BackupParts {
  const { db, sealer, queue, engine } = deps;
  const stores = createStores({ db, sealer, backupDir: deps.backupDir, allowPrivateEndpoints: deps.allowPrivateEndpoints });
  const findDatabase = async (id: string) => {
    const row = await deps.services.findRow(id);
    return row && row.type === 'DATABASE' ? row : null;
  };
  const events = createBackupEvents({
    db, queue, notifier: deps.notifier, findDatabase, eventScope: deps.eventScope, serviceLog: deps.serviceLog,
    consoleUrl: (d) => `${deps.publicUrl.replace(/\/+$/, '')}/ui/services/database/${d.id}`,
  });
  const backupRunner = createBackupRunner({
    db, stores, events, engine: () => engine.databaseBackups ?? null,
    driverService: (id) => databaseDriverService({ db, sealer, engineReal: engine.real, findRow: deps.services.findRow }, id),
  });
  const backups = createBackupsService({
    db, queue, stores, runner: backupRunner, services: deps.services, deployments: deps.deployments,
    engineRefusal: () => (engine.databaseBackups ? null : `Backups need an engine that can reach the database's container; the ${engine.name} engine cannot`),
  });
  const backupLifecycle = createBackupLifecycle({
    db, queue, stores, runner: backupRunner, events, backups, logger: deps.logger,
    databaseState: async (id) => {
      const row = await findDatabase(id);
      return row ? { state: row.state, deploymentStatus: row.deployment_status } : null;
    },
  });
  const backupStorage = createBackupStorageService({ db, sealer, stores, organizations: deps.organizations, allowPrivateEndpoints: deps.allowPrivateEndpoints });
  return { backups, backupStorage, backupRunner, backupLifecycle };
}
