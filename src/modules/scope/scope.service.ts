// Where a resource sits in the hierarchy, and whether the caller may act on it: every module
// that takes an environment or service id resolves it here first (404 when it does not exist),
// then the caller is authorized in the owning organization (403). One query per lookup.
// A workflow run's credential (decision 0197) passes only for its environment and its services.
import type { Db, Queryable } from '../../db/db.ts';
import { forbidden, notFound } from '../../lib/errors.ts';
import type { Principal } from '../access/principal.ts';
import type { Action, Role } from '../access/roles.ts';
import type { OrganizationsService } from '../organizations/organizations.service.ts';
import * as repo from './scope.repo.ts';
import type { EnvRow } from './scope.repo.ts';

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

function toEnvScope(r: EnvRow): EnvironmentScope {
  return {
    organizationId: r.organization_id, projectId: r.project_id, environmentId: r.environment_id,
    environmentName: r.environment_name, environmentMode: r.environment_mode, autoPreview: r.auto_preview,
    deleting: r.deleting, clusterId: r.cluster_id, capacity: { cpu: r.cpu, memory: r.memory, gpu: r.gpu },
  };
}

async function loadEnvironmentScope(db: Queryable, environmentId: string): Promise<EnvironmentScope | null> {
  const row = await repo.findEnvironmentRow(db, environmentId);
  return row ? toEnvScope(row) : null;
}

export async function loadServiceScope(db: Queryable, serviceId: string, type?: string): Promise<ServiceScope | null> {
  const r = await repo.findServiceRow(db, serviceId, type);
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
  /** for other modules' background work (no principal): a service's scope, or null */
  serviceScope(serviceId: string): Promise<ServiceScope | null>;
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
    serviceScope: (serviceId) => loadServiceScope(db, serviceId),
    async service(p, serviceId, action, type, label = 'Service') {
      const scope = await loadServiceScope(db, serviceId, type);
      if (!scope) throw notFound(label);
      checkRunScope(p, scope.environmentId, scope.serviceId);
      const role = await organizations.authorize(p, scope.organizationId, action);
      return { ...scope, role };
    },
  };
}
