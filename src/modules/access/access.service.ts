// Authorization, checked by every service before it reads or changes anything: the caller's role
// in an organization (a token's own role in its own organization, a user's membership), then
// whether that role allows the action. Memberships are cached briefly; changes here invalidate.
import { rememberBounded } from '../../lib/bounded-map.ts';
import { forbidden } from '../../lib/errors.ts';
import type { Principal } from './principal.ts';
import { ROLES, roleAllows, type Action, type Role } from './roles.ts';

const MEMBERSHIP_TTL_MS = 5_000;

export interface AccessService {
  roleOf(principal: Principal, organizationId: string): Promise<Role | null>;
  /** the caller's role when it is known without the database (a token's own organization, a
   * cached membership; null: known not to be a member), else undefined */
  knownRole(principal: Principal, organizationId: string): Role | null | undefined;
  /** resolves to the caller's role, or throws 403 */
  authorize(principal: Principal, organizationId: string, action: Action): Promise<Role>;
  forget(userId: string, organizationId: string): void;
  /** the highest role the caller holds in any organization (a token: its own); null: none */
  highestRole(principal: Principal): Promise<Role | null>;
}

/** what access reads of memberships (the members module's table): the composition root passes the
 * members service's methods (written here, not imported: the members service takes this one) */
export interface MembershipLookup {
  roleIn(organizationId: string, userId: string): Promise<Role | null>;
  rolesOf(userId: string): Promise<Role[]>;
}

export function createAccessService(memberships: MembershipLookup): AccessService {
  const cache = new Map<string, { role: Role | null; until: number }>();

  function knownRole(principal: Principal, organizationId: string): Role | null | undefined {
    if (principal.kind === 'token') return principal.organizationId === organizationId ? principal.role : null;
    const hit = cache.get(`${principal.id}:${organizationId}`);
    return hit && hit.until > Date.now() ? hit.role : undefined;
  }

  /** the role, or 403 */
  function decide(role: Role | null, action: Action): Role {
    if (role === null) throw forbidden('You are not a member of this organization');
    if (!roleAllows(role, action)) throw forbidden(`Your role ${role} does not allow this operation`);
    return role;
  }

  /** a user's membership read from the database, and cached */
  async function readRole(principal: Principal, organizationId: string): Promise<Role | null> {
    const key = `${principal.id}:${organizationId}`;
    const now = Date.now();
    const role = await memberships.roleIn(organizationId, principal.id);
    rememberBounded(cache, key, { role, until: now + MEMBERSHIP_TTL_MS });
    return role;
  }

  async function roleOf(principal: Principal, organizationId: string): Promise<Role | null> {
    const known = knownRole(principal, organizationId);
    return known !== undefined ? known : readRole(principal, organizationId);
  }

  return {
    roleOf,
    knownRole,
    // a plain function: a known role is decided without a database round trip or an async frame
    authorize(principal, organizationId, action) {
      const known = knownRole(principal, organizationId);
      if (known === undefined) return readRole(principal, organizationId).then((role) => decide(role, action));
      try {
        return Promise.resolve(decide(known, action));
      } catch (err) {
        return Promise.reject(err);
      }
    },
    forget(userId, organizationId) {
      cache.delete(`${userId}:${organizationId}`);
    },
    async highestRole(principal) {
      if (principal.kind === 'token') return principal.role;
      const roles = await memberships.rolesOf(principal.id);
      return roles.reduce<Role | null>((best, r) => (best === null || ROLES.indexOf(r) > ROLES.indexOf(best) ? r : best), null);
    },
  };
}
