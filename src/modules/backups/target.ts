// A database as the engine's dumps need it: the driver's view of the service, with its runtime
// plan (credentials opened, image) on a real engine, as a deployment would give it.
import type { Queryable } from '../../db/db.ts';
import type { DriverService } from '../../engine/index.ts';
import type { Sealer } from '../../lib/crypto.ts';
import { buildRuntimePlan } from '../deployments/runtime-plan.ts';
import type { ServicesService } from '../services/services.service.ts';

export async function databaseDriverService(
  deps: { db: Queryable; sealer: Sealer; engineReal: boolean; findRow: ServicesService['findRow'] },
  databaseId: string,
): Promise<DriverService | null> {
  const svc = await deps.findRow(databaseId);
  if (!svc || svc.type !== 'DATABASE') return null;
  const service: DriverService = {
    id: svc.id, type: svc.type, name: svc.name, slug: svc.slug, environmentId: svc.environment_id, spec: svc.spec ?? {},
    advancedSettings: {}, gitCommitId: null, imageTag: null, projectId: svc.project_id, organizationId: svc.organization_id,
  };
  return deps.engineReal ? { ...service, plan: await buildRuntimePlan({ db: deps.db, sealer: deps.sealer }, svc.id) } : service;
}
