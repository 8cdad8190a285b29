// Pure rules of organization-wide vs personal (USER-scoped) resources, shared by LLM providers
// and MCP connectors: who sees one, who may change one, and who may use (attach) one.
import type { Principal } from '../access/principal.ts';
import { roleAllows, type Role } from '../access/roles.ts';

const SCOPES = ['ORGANIZATION', 'USER'] as const;
export type OwnedScope = (typeof SCOPES)[number];

export interface Owned { scope: OwnedScope; ownerUserId: string | null }

/** a USER resource belongs to the signed-in user who made it; tokens own none */
export function isOwner(p: Principal, r: Owned): boolean {
  return p.kind === 'user' && r.ownerUserId !== null && r.ownerUserId === p.id;
}

/** ORGANIZATION resources are seen by every member; USER ones by their owner only (attaching one to a workflow needs the same) */
export function canSee(p: Principal, r: Owned): boolean {
  return r.scope === 'ORGANIZATION' || isOwner(p, r);
}

/** ORGANIZATION resources are managed by ADMIN+; USER ones by their owner, DEVOPS+ */
export function canChange(p: Principal, role: Role, r: Owned): boolean {
  if (r.scope === 'ORGANIZATION') return roleAllows(role, 'manage');
  return isOwner(p, r) && roleAllows(role, 'write');
}

/** why a caller may not create a resource of this scope, or null */
export function createRefusal(p: Principal, role: Role, scope: OwnedScope): { status: 400 | 403; message: string } | null {
  if (scope === 'USER') {
    if (p.kind !== 'user') return { status: 400, message: 'scope USER is personal to a signed-in user; an API token cannot own one (use scope ORGANIZATION)' };
    return roleAllows(role, 'write') ? null : { status: 403, message: 'Access forbidden: DEVOPS or higher is needed' };
  }
  return roleAllows(role, 'manage') ? null : { status: 403, message: 'Access forbidden: ADMIN or higher manages organization-wide resources' };
}
