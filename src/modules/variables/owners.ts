// Who owns a variable: a project, an environment or a service, resolved from (scope, id) with
// the caller authorized (404 for an unknown or mistyped owner, then 403), plus the chain of ids
// from the project down to it. Writes to an environment being deleted are refused (409, refuseWhileDeleting).
import type { Db } from '../../db/db.ts';
import { notFound } from '../../lib/errors.ts';
import { refuseWhileDeleting } from '../environments/environments.rules.ts';
import type { Principal } from '../access/principal.ts';
import type { Action } from '../access/roles.ts';
import type { OrganizationsService } from '../organizations/organizations.service.ts';
import type { ScopeService } from '../scope/scope.service.ts';
import { kindOfScope, type ParentKind } from './parents.ts';
import * as repo from './variables.repo.ts';

export interface Owner {
  kind: ParentKind; id: string; organizationId: string; projectId: string;
  environmentId: string | null; serviceId: string | null;
  /** project, environment, service ids from the top down to this owner */
  chain: string[];
}

export type OwnerResolver = (p: Principal, scopeName: string, id: string, action: Action) => Promise<Owner>;

export function createOwnerResolver(deps: { db: Db; scope: ScopeService; organizations: OrganizationsService }): OwnerResolver {
  const { db, scope, organizations } = deps;
  return async (p, scopeName, id, action) => {
    const kind = kindOfScope(scopeName);
    if (kind.level === 'project') {
      const project = await repo.findProject(db, id);
      if (!project) throw notFound('Project');
      await organizations.authorize(p, project.organization_id, action);
      return { kind, id, organizationId: project.organization_id, projectId: id, environmentId: null, serviceId: null, chain: [id] };
    }
    if (kind.level === 'environment') {
      const env = await scope.environment(p, id, action);
      if (action === 'write') refuseWhileDeleting(env);
      return { kind, id, organizationId: env.organizationId, projectId: env.projectId, environmentId: id, serviceId: null, chain: [env.projectId, id] };
    }
    const svc = await scope.service(p, id, action, kind.serviceType ?? undefined, kind.label);
    if (action === 'write') refuseWhileDeleting(svc);
    return {
      kind, id, organizationId: svc.organizationId, projectId: svc.projectId, environmentId: svc.environmentId, serviceId: id,
      chain: [svc.projectId, svc.environmentId, id],
    };
  };
}

/** the owners above a service owner (same organization, already authorized through it) */
export function ownerAbove(owner: Owner, level: 'project' | 'environment'): Owner {
  if (level === 'project') {
    return { kind: kindOfScope('PROJECT'), id: owner.projectId, organizationId: owner.organizationId, projectId: owner.projectId, environmentId: null, serviceId: null, chain: [owner.projectId] };
  }
  if (!owner.environmentId) throw new Error('no environment above a project');
  return {
    kind: kindOfScope('ENVIRONMENT'), id: owner.environmentId, organizationId: owner.organizationId, projectId: owner.projectId,
    environmentId: owner.environmentId, serviceId: null, chain: [owner.projectId, owner.environmentId],
  };
}
