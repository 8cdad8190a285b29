// Deleting an environment (alone, or with its project) or a single service asks the engine to
// uninstall what was deployed, volumes included. These run inside the deleting transaction
// (wired by the composition root before environments and services are removed), where no
// engine call may wait, so they record a snapshot of every deployed
// service in an `engine.uninstall` task; the worker (src/workers/engine-uninstall.ts) then calls
// the driver's uninstall for each. A lifecycle job with an on_delete command carries its runtime
// plan, sealed (it holds opened secrets), so the command can still run once the rows are gone.
import type { Queryable } from '../../db/db.ts';
import type { DriverService, RuntimePlan } from '../../engine/index.ts';
import { completeAdvancedSettings } from '../services/advanced-settings/index.ts';
import { ADVANCED_SETTINGS_KINDS, type ServicesService } from '../services/services.service.ts';
import type { Platform } from '../../platform.ts';
import { lastDeployedImage } from './deployments.repo.ts';
import { buildRuntimePlan } from './runtime-plan.ts';

type Ctx = Pick<Platform, 'logger' | 'engine' | 'sealer'>;

type Snapshot = DriverService & { sealedPlan?: string };

/** the platform's parts, and the services module's rows (the composition root's services service) */
type UninstallDeps = Pick<Platform, 'queue' | 'engine' | 'sealer'> & { services: Pick<ServicesService, 'deployedRows'> };

async function snapshotDeployed(tx: Queryable, ctx: UninstallDeps, where: 'environment_id' | 'id', ids: string[]): Promise<Snapshot[]> {
  const rows = await ctx.services.deployedRows(tx, where, ids);
  const out: Snapshot[] = [];
  for (const r of rows) {
    const spec = (r.spec ?? {}) as Record<string, any>;
    const snapshot: Snapshot = {
      id: r.id, type: r.type, name: r.name, slug: r.slug, environmentId: r.environment_id, spec,
      // complete: the uninstall applies the grace period and the pre-stop command
      advancedSettings: ADVANCED_SETTINGS_KINDS[r.type] ? completeAdvancedSettings(ADVANCED_SETTINGS_KINDS[r.type]!, r.advanced_settings) : {},
      gitCommitId: null, imageTag: null, projectId: r.project_id, organizationId: r.organization_id,
    };
    if (ctx.engine.real && r.type === 'JOB' && spec.schedule?.on_delete) {
      const plan = await buildRuntimePlan({ db: tx, sealer: ctx.sealer }, r.id);
      snapshot.imageTag = await lastDeployedImage(tx, r.id);
      snapshot.sealedPlan = ctx.sealer.seal(JSON.stringify(plan));
    }
    out.push(snapshot);
  }
  return out;
}

export interface UninstallOnRemoval {
  /** before environments are removed: an engine.uninstall task for what they ran */
  environments(tx: Queryable, removed: { environmentIds: string[] }): Promise<void>;
  /** before services are removed: an engine.uninstall task for what they ran */
  services(tx: Queryable, serviceIds: string[]): Promise<void>;
}

export function uninstallOnRemoval(ctx: UninstallDeps): UninstallOnRemoval {
  const enqueue = async (tx: Queryable, where: 'environment_id' | 'id', ids: string[]) => {
    const services = await snapshotDeployed(tx, ctx, where, ids);
    if (services.length > 0) await ctx.queue.enqueue(tx, 'engine.uninstall', { services: services as unknown as Record<string, unknown>[] });
  };
  return {
    environments: (tx, { environmentIds }) => enqueue(tx, 'environment_id', environmentIds),
    services: (tx, serviceIds) => enqueue(tx, 'id', serviceIds),
  };
}

export async function runEngineUninstall(ctx: Ctx, services: Snapshot[]): Promise<void> {
  for (const { sealedPlan, ...service } of services) {
    const log = async (_kind: string, message: string) => { ctx.logger.info({ serviceId: service.id }, message); };
    const plan = sealedPlan ? JSON.parse(ctx.sealer.open(sealedPlan)) as RuntimePlan : undefined;
    // the service is gone for good: its volumes and images go with it
    await ctx.engine.uninstall({ ...service, ...(plan ? { plan } : {}) }, log, AbortSignal.timeout(5 * 60_000), { purge: true });
  }
}
