// Organizations: any signed-in user may create one and becomes its OWNER; members read it;
// ADMINs edit it; the OWNER deletes it or transfers ownership. API tokens belong to one
// organization and see only it. Other modules call `authorize` to check a caller against an
// organization (404 when it does not exist, then 403).
import type { Db, Queryable } from '../../db/db.ts';
import { badRequest, forbidden, notFound } from '../../lib/errors.ts';
import { page, type PageRequest } from '../../http/pagination.ts';
import type { AccessService } from '../access/access.service.ts';
import type { IdentityService } from '../identity/identity.service.ts';
import type { Principal } from '../access/principal.ts';
import type { Action, Role } from '../access/roles.ts';
import * as repo from './organizations.repo.ts';
import type { Organization, OrganizationRequest } from './organizations.schemas.ts';

export interface OrganizationsService {
  list(p: Principal, req: PageRequest): Promise<{ results: Organization[]; pagination: ReturnType<typeof page>['pagination'] }>;
  create(p: Principal, body: OrganizationRequest): Promise<Organization>;
  get(p: Principal, id: string): Promise<Organization>;
  update(p: Principal, id: string, body: OrganizationRequest): Promise<Organization>;
  remove(p: Principal, id: string): Promise<void>;
  transferOwnership(p: Principal, id: string, userId: string): Promise<void>;
  /** 404 if the organization does not exist, 403 if the caller may not do `action` in it */
  authorize(p: Principal, organizationId: string, action: Action): Promise<Role>;
  /** for the bootstrap and the CLI (no caller to authorize): the organization of that name, made when missing */
  ensure(name: string, description: string): Promise<{ id: string; created: boolean }>;
  /** for background work (no caller): the organization's name, null when it is gone */
  nameOf(id: string): Promise<string | null>;
}

/** what organizations asks of the members module (memberships is its table): the composition root
 * passes the members service's methods (written here, not imported: the members service takes this one) */
export interface OwnerMemberships {
  addOwner(tx: Queryable, organizationId: string, userId: string): Promise<void>;
  /** false when the user is no member */
  makeOwner(tx: Queryable, organizationId: string, userId: string): Promise<boolean>;
}

export function createOrganizationsService(deps: { db: Db; access: AccessService; identity: IdentityService; memberships: OwnerMemberships }): OrganizationsService {
  const { db, access, identity, memberships } = deps;

  function authorize(p: Principal, organizationId: string, action: Action): Promise<Role> {
    // a member whose role is known: no lookup of the organization, no async frame (issue 15)
    if (access.knownRole(p, organizationId)) return access.authorize(p, organizationId, action);
    return authorizeAfterLookups(p, organizationId, action);
  }

  async function authorizeAfterLookups(p: Principal, organizationId: string, action: Action): Promise<Role> {
    if (p.kind === 'token') {
      // a token only ever sees its own organization: anything else is "not found" or forbidden
      if (p.organizationId !== organizationId) {
        const exists = await repo.findOrganization(db, organizationId);
        if (!exists) throw notFound('Organization');
      }
      return access.authorize(p, organizationId, action);
    }
    const role = await access.roleOf(p, organizationId);
    if (role === null) {
      const exists = await repo.findOrganization(db, organizationId);
      if (!exists) throw notFound('Organization');
    }
    return access.authorize(p, organizationId, action);
  }

  return {
    async ensure(name, description) {
      const existing = await repo.findOrganizationByName(db, name);
      if (existing) return { id: existing.id, created: false };
      const org = await db.transaction((tx) => repo.insertOrganization(tx, { name, description }, null));
      return { id: org.id, created: true };
    },
    authorize,
    nameOf: async (id) => (await repo.findOrganization(db, id))?.name ?? null,
    async list(p, req) {
      if (p.kind === 'token') {
        const org = await repo.findOrganization(db, p.organizationId);
        const all = org ? [org] : [];
        const items = req.limit === null ? all : all.slice(req.offset, req.offset + req.limit);
        return page(req, items, all.length);
      }
      const { items, total } = await repo.listOrganizationsOfUser(db, p.id, req.limit, req.offset);
      return page(req, items, total);
    },
    async create(p, body) {
      if (p.kind !== 'user') {
        throw forbidden('API tokens belong to one organization and cannot create others; use a user account or `berth token create --organization NAME`');
      }
      return db.transaction(async (tx) => {
        const org = await repo.insertOrganization(tx, body, p.id);
        await memberships.addOwner(tx, org.id, p.id);
        access.forget(p.id, org.id);
        return org;
      });
    },
    async get(p, id) {
      const org = await repo.findOrganization(db, id);
      if (!org) throw notFound('Organization');
      await access.authorize(p, id, 'read');
      return org;
    },
    async update(p, id, body) {
      await authorize(p, id, 'manage');
      const org = await repo.updateOrganization(db, id, body);
      if (!org) throw notFound('Organization');
      return org;
    },
    async remove(p, id) {
      await authorize(p, id, 'own');
      if (!(await repo.deleteOrganization(db, id))) throw notFound('Organization');
      identity.evictOrganization(id);
    },
    async transferOwnership(p, id, userId) {
      await authorize(p, id, 'own');
      await db.transaction(async (tx) => {
        if (!(await memberships.makeOwner(tx, id, userId))) throw badRequest('user_id is not a member of this organization');
        await repo.setOwner(tx, id, userId);
      });
      if (p.kind === 'user') access.forget(p.id, id);
      access.forget(userId, id);
    },
  };
}
