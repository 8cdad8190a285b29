// Authorization, checked by every service before it reads or changes anything: the caller's role
// in an organization (a token's own role in its own organization, a user's membership), then
// whether that role allows the action. Memberships are cached briefly; changes here invalidate.
import { rememberBounded } from '../../lib/bounded-map.ts';
import type { Db } from '../../db/db.ts';
import { forbidden } from '../../lib/errors.ts';
import type { Principal } from './principal.ts';
import { roleAllows, type Action, type Role } from './roles.ts';

const MEMBERSHIP_TTL_MS = 5_000;

export interface AccessService {
  roleOf(principal: Principal, organizationId: string): Promise<Role | null>;
  /** resolves to the caller's role, or throws 403 */
  authorize(principal: Principal, organizationId: string, action: Action): Promise<Role>;
  forget(userId: string, organizationId: string): void;
}

export function createAccessService(db: Db): AccessService {
  const cache = new Map<string, { role: Role | null; until: number }>();

  async function roleOf(principal: Principal, organizationId: string): Promise<Role | null> {
    if (principal.kind === 'token') return principal.organizationId === organizationId ? principal.role : null;
    const key = `${principal.id}:${organizationId}`;
    const hit = cache.get(key);
    const now = Date.now();
    if (hit && hit.until > now) return hit.role;
    const rows = await db.query<{ role: Role }>(
      'select role from memberships where organization_id = $1 and user_id = $2',
      [organizationId, principal.id],
    );
    const role = rows[0]?.role ?? null;
    rememberBounded(cache, key, { role, until: now + MEMBERSHIP_TTL_MS });
    return role;
  }

  return {
    roleOf,
    async authorize(principal, organizationId, action) {
      const role = await roleOf(principal, organizationId);
      if (role === null) throw forbidden('You are not a member of this organization');
      if (!roleAllows(role, action)) throw forbidden(`Your role ${role} does not allow this operation`);
      return role;
    },
    forget(userId, organizationId) {
      cache.delete(`${userId}:${organizationId}`);
    },
  };
}
