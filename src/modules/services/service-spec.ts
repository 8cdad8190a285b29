// Reading a service's full typed spec, for other modules (deployments, engine renderers): the
// stored spec of its type, its complete advanced settings, its registry when it runs an image,
// and (databases) a way to open the master credentials. Read-only; no authorization (callers
// have authorized already).
import type { Queryable } from '../../db/db.ts';
import type { Sealer } from '../../lib/crypto.ts';
import { completeAdvancedSettings, type SettingValue } from './advanced-settings/index.ts';
import { hydrateApplicationSpec, type ApplicationSpec } from './applications/application.handler.ts';
import type { Registry } from './common.schemas.ts';
import { hydrateContainerSpec, type ContainerSpec } from './containers/container.handler.ts';
import { hydrateDatabaseSpec, openCredentials, type DatabaseSpec } from './databases/database.handler.ts';
import type { Credentials } from './databases/database.schemas.ts';
import { hydrateJobSpec, type JobSpec } from './jobs/job.handler.ts';
import { jobType } from './jobs/job.rules.ts';
import { findRegistries, findService, type ServiceRow } from './services.repo.ts';
import { ADVANCED_SETTINGS_KINDS } from './services.service.ts';

interface Common {
  id: string; organizationId: string; projectId: string; environmentId: string; name: string; slug: string;
  state: string; deploymentStatus: string; lastDeploymentAt: Date | null;
  /** complete advanced settings (every key of the kind); {} for types without them */
  advancedSettings: Record<string, SettingValue>;
}

export type LoadedServiceSpec =
  | (Common & { type: 'APPLICATION'; spec: ApplicationSpec })
  | (Common & { type: 'CONTAINER'; spec: ContainerSpec; registry: Registry | null })
  | (Common & { type: 'DATABASE'; spec: DatabaseSpec; openCredentials(sealer: Sealer): Credentials })
  | (Common & { type: 'JOB'; spec: JobSpec; jobType: 'CRON' | 'LIFECYCLE'; registry: Registry | null })
  | (Common & { type: 'OTHER'; serviceType: string; spec: Record<string, unknown> });

export async function loadServiceSpec(db: Queryable, serviceId: string): Promise<LoadedServiceSpec | null> {
  const row = await findService(db, serviceId);
  return row ? describeServiceRow(db, row) : null;
}

export async function describeServiceRow(db: Queryable, row: ServiceRow): Promise<LoadedServiceSpec> {
  const kind = ADVANCED_SETTINGS_KINDS[row.type];
  const common: Common = {
    id: row.id, organizationId: row.organization_id, projectId: row.project_id, environmentId: row.environment_id, name: row.name,
    slug: row.slug, state: row.state, deploymentStatus: row.deployment_status, lastDeploymentAt: row.last_deployment_at,
    advancedSettings: kind ? (completeAdvancedSettings(kind, row.advanced_settings) as Record<string, SettingValue>) : {},
  };
  const registry = async (id: string | undefined) => (id ? (await findRegistries(db, row.organization_id, [id])).get(id) ?? null : null);
  switch (row.type) {
    case 'APPLICATION':
      return { ...common, type: 'APPLICATION', spec: hydrateApplicationSpec(row.spec) };
    case 'CONTAINER': {
      const spec = hydrateContainerSpec(row.spec);
      return { ...common, type: 'CONTAINER', spec, registry: await registry(spec.registry_id) };
    }
    case 'DATABASE':
      return { ...common, type: 'DATABASE', spec: hydrateDatabaseSpec(row.spec), openCredentials: (sealer) => openCredentials(row, sealer) };
    case 'JOB': {
      const spec = hydrateJobSpec(row.spec);
      return { ...common, type: 'JOB', spec, jobType: jobType(spec.schedule), registry: await registry('image' in spec.source ? spec.source.image.registry_id : undefined) };
    }
    default:
      return { ...common, type: 'OTHER', serviceType: row.type, spec: row.spec };
  }
}
