// Organizations: any signed-in user may create one and becomes its OWNER; members read it;
// ADMINs edit it; the OWNER deletes it or transfers ownership. API tokens belong to one
// organization and see only it. Other modules call `authorize` to check a caller against an
// organization (404 when it does not exist, then 403).
import type { Db } from '../../db/db.ts';
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
}

export function createOrganizationsService(deps: { db: Db; access: AccessService; identity: IdentityService }): OrganizationsService {
  const { db, access, identity } = deps;

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
        await tx.query(`insert into memberships (organization_id, user_id, role) values ($1, $2, 'OWNER')`, [org.id, p.id]);
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
        const target = await tx.query<{ role: Role }>(
          'select role from memberships where organization_id = $1 and user_id = $2 for update', [id, userId]);
        if (!target[0]) throw badRequest('user_id is not a member of this organization');
        await tx.query(`update memberships set role = 'ADMIN', updated_at = now() where organization_id = $1 and role = 'OWNER'`, [id]);
        await tx.query(`update memberships set role = 'OWNER', updated_at = now() where organization_id = $1 and user_id = $2`, [id, userId]);
        await tx.query('update organizations set owner_user_id = $2, updated_at = now() where id = $1', [id, userId]);
      });
      if (p.kind === 'user') access.forget(p.id, id);
      access.forget(userId, id);
    },
  };
}
