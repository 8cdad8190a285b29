// Deleting an environment (alone, or with its project) asks the engine to uninstall what was
// deployed there. The removal hook runs inside the deleting transaction, where no engine call may
// wait, so it records a snapshot of every deployed service in an `engine.uninstall` task; the
// worker (src/workers/engine-uninstall.ts) then calls the driver's uninstall for each.
import type { AppContext } from '../../context.ts';
import type { Queryable } from '../../db/db.ts';
import type { DriverService } from '../../engine/engine.ts';
import { environmentRemovalHooks } from '../environments/environments.removal.ts';

type Ctx = Pick<AppContext, 'queue' | 'config' | 'logger' | 'engine'>;

async function snapshotDeployed(tx: Queryable, environmentIds: string[]): Promise<DriverService[]> {
  const rows = await tx.query<{ id: string; type: string; name: string; slug: string; environment_id: string; project_id: string; organization_id: string; spec: Record<string, unknown>; advanced_settings: Record<string, unknown> }>(
    `select id, type, name, slug, environment_id, project_id, organization_id, spec, advanced_settings from services
      where environment_id = any($1::uuid[]) and deployment_status <> 'NEVER_DEPLOYED'`, [environmentIds]);
  return rows.map((r) => ({
    id: r.id, type: r.type, name: r.name, slug: r.slug, environmentId: r.environment_id, spec: r.spec ?? {},
    advancedSettings: r.advanced_settings ?? {}, gitCommitId: null, imageTag: null, projectId: r.project_id, organizationId: r.organization_id,
  }));
}

let registered = false;
/** installs the removal hook (once per process) */
export function registerEngineUninstallOnRemoval(): void {
  if (registered) return;
  registered = true;
  environmentRemovalHooks.push(async (tx, ctx, { environmentIds }) => {
    const services = await snapshotDeployed(tx, environmentIds);
    if (services.length > 0) await ctx.queue.enqueue(tx, 'engine.uninstall', { services: services as unknown as Record<string, unknown>[] });
  });
}

export async function runEngineUninstall(ctx: Ctx, services: DriverService[]): Promise<void> {
  for (const service of services) {
    const log = async (_kind: string, message: string) => { ctx.logger.info({ serviceId: service.id }, message); };
    // the environment is gone for good: its volumes go with it
    await ctx.engine.uninstall(service, log, AbortSignal.timeout(5 * 60_000), { purge: true });
  }
}

