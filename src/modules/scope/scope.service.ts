// Where a resource sits in the hierarchy, and whether the caller may act on it: every module
// that takes an environment or service id resolves it here first (404 when it does not exist),
// then the caller is authorized in the owning organization (403). One query per lookup.
// A workflow run's credential (decision 0197) passes only for its environment and its services.
import type { Db, Queryable } from '../../db/db.ts';
import { forbidden, notFound } from '../../lib/errors.ts';
import type { Principal } from '../access/principal.ts';
import type { Action, Role } from '../access/roles.ts';
import type { OrganizationsService } from '../organizations/organizations.service.ts';

export interface ClusterCapacity { cpu: number; memory: number; gpu: number }

export interface EnvironmentScope {
  organizationId: string;
  projectId: string;
  environmentId: string;
  environmentName: string;
  environmentMode: string;
  autoPreview: boolean;
  deleting: boolean;
  clusterId: string;
  /** what one service may request at most (the cluster's capacity) */
  capacity: ClusterCapacity;
}

export interface ServiceScope extends EnvironmentScope {
  serviceId: string;
  serviceType: string;
  serviceName: string;
}

const ENV_SELECT = `select e.organization_id, e.project_id, e.id as environment_id, e.name as environment_name,
  e.mode as environment_mode, e.auto_preview, e.deleting, e.cluster_id, c.cpu, c.memory, c.gpu
  from environments e join clusters c on c.id = e.cluster_id`;

interface EnvRow {
  organization_id: string; project_id: string; environment_id: string; environment_name: string; environment_mode: string;
  auto_preview: boolean; deleting: boolean; cluster_id: string; cpu: number; memory: number; gpu: number;
}

function toEnvScope(r: EnvRow): EnvironmentScope {
  return {
    organizationId: r.organization_id, projectId: r.project_id, environmentId: r.environment_id,
    environmentName: r.environment_name, environmentMode: r.environment_mode, autoPreview: r.auto_preview,
    deleting: r.deleting, clusterId: r.cluster_id, capacity: { cpu: r.cpu, memory: r.memory, gpu: r.gpu },
  };
}

async function loadEnvironmentScope(db: Queryable, environmentId: string): Promise<EnvironmentScope | null> {
  const rows = await db.query<EnvRow>(`${ENV_SELECT} where e.id = $1`, [environmentId]);
  return rows[0] ? toEnvScope(rows[0]) : null;
}

export async function loadServiceScope(db: Queryable, serviceId: string, type?: string): Promise<ServiceScope | null> {
  const rows = await db.query<EnvRow & { service_id: string; service_type: string; service_name: string }>(
    `${ENV_SELECT.replace('select ', 'select s.id as service_id, s.type as service_type, s.name as service_name, ')}
      join services s on s.environment_id = e.id where s.id = $1 and ($2::text is null or s.type = $2)`,
    [serviceId, type ?? null]);
  const r = rows[0];
  return r ? { ...toEnvScope(r), serviceId: r.service_id, serviceType: r.service_type, serviceName: r.service_name } : null;
}

const OUTSIDE_SERVICES = 'This workflow run\'s credential reaches only the workflow and its context services (context_service_ids)';

/** whether the caller may reach this service: always, but for a run's credential (its services only) */
export function runScopeReaches(p: Principal, serviceId: string): boolean {
  const run = p.kind === 'token' ? p.runScope : undefined;
  return !run || run.serviceIds.includes(serviceId);
}

/** 403 when a run's credential reaches outside its run: another environment or service */
export function checkRunScope(p: Principal, environmentId: string, serviceId?: string): void {
  const run = p.kind === 'token' ? p.runScope : undefined;
  if (!run) return;
  if (environmentId !== run.environmentId) throw forbidden('This workflow run\'s credential reaches only the environment the run runs in');
  if (serviceId !== undefined && !runScopeReaches(p, serviceId)) throw forbidden(OUTSIDE_SERVICES);
}

export interface ScopeService {
  /** 404 "Environment not found", then 403 */
  environment(p: Principal, environmentId: string, action: Action): Promise<EnvironmentScope & { role: Role }>;
  /** 404 "<label> not found" (when missing or of another type), then 403 */
  service(p: Principal, serviceId: string, action: Action, type?: string, label?: string): Promise<ServiceScope & { role: Role }>;
}

export function createScopeService(deps: { db: Db; organizations: OrganizationsService }): ScopeService {
  const { db, organizations } = deps;
  return {
    async environment(p, environmentId, action) {
      const scope = await loadEnvironmentScope(db, environmentId);
      if (!scope) throw notFound('Environment');
      checkRunScope(p, scope.environmentId);
      const role = await organizations.authorize(p, scope.organizationId, action);
      return { ...scope, role };
    },
    async service(p, serviceId, action, type, label = 'Service') {
      const scope = await loadServiceScope(db, serviceId, type);
      if (!scope) throw notFound(label);
      checkRunScope(p, scope.environmentId, scope.serviceId);
      const role = await organizations.authorize(p, scope.organizationId, action);
      return { ...scope, role };
    },
  };
}
