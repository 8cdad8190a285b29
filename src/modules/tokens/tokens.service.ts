// API tokens: ADMINs create them with a role no higher than their own; the secret is in the
// creation response only (stored as a SHA-256 hash); deleting one revokes it at once here.
import type { Db, Queryable } from '../../db/db.ts';
import { generateApiToken, sha256Hex } from '../../lib/crypto.ts';
import { badRequest, forbidden, notFound } from '../../lib/errors.ts';
import { page, type PageRequest } from '../../http/pagination.ts';
import type { AccessService } from '../access/access.service.ts';
import { displayName, type Principal } from '../access/principal.ts';
import { canGrant, resolveRole, type Role } from '../access/roles.ts';
import type { IdentityService } from '../identity/identity.service.ts';
import type { OrganizationsService } from '../organizations/organizations.service.ts';
import * as repo from './tokens.repo.ts';
import type { ApiToken, ApiTokenCreated, ApiTokenCreateRequest } from './tokens.schemas.ts';

export interface TokensService {
  list(p: Principal, orgId: string, req: PageRequest, name?: string): Promise<ReturnType<typeof page<ApiToken>>>;
  create(p: Principal, orgId: string, body: ApiTokenCreateRequest): Promise<ApiTokenCreated>;
  remove(p: Principal, orgId: string, tokenId: string): Promise<void>;
  /** for the CLI and the bootstrap: no caller to authorize */
  issue(db: Queryable, orgId: string, name: string, role: Role, description?: string): Promise<ApiTokenCreated>;
  /** for the bootstrap: the OWNER token BOOTSTRAP_TOKEN names (by its hash), made or kept */
  keepBootstrapToken(orgId: string, tokenHash: string): Promise<void>;
  /** for the bootstrap: how many tokens the organization has */
  count(orgId: string): Promise<number>;
  /** for authentication (identity): the token with this SHA-256 hash, or null */
  byHash(hash: string): Promise<{ id: string; organizationId: string; role: Role; name: string } | null>;
  /** for authentication: records the token's use, in the background (a failure is ignored) */
  markUsed(tokenId: string): void;
}

export function createTokensService(deps: { db: Db; access: AccessService; identity: IdentityService; organizations: OrganizationsService }): TokensService {
  const { db, identity, organizations } = deps;

  async function issue(q: Queryable, orgId: string, name: string, role: Role, description = '', creator?: Principal): Promise<ApiTokenCreated> {
    const token = generateApiToken();
    const row = await repo.insertToken(q, {
      organizationId: orgId, name, description, role, hash: sha256Hex(token),
      createdBy: creator?.kind === 'user' ? creator.id : null, createdByName: creator ? displayName(creator) : 'berth',
    });
    return { ...row, token };
  }

  return {
    keepBootstrapToken: (orgId, tokenHash) => repo.upsertBootstrapToken(db, orgId, tokenHash),
    byHash: (hash) => repo.findTokenByHash(db, hash),
    markUsed(tokenId) {
      void repo.touchToken(db, tokenId).catch(() => {});
    },
    count: (orgId) => repo.countTokens(db, orgId),
    issue: (q, orgId, name, role, description) => issue(q, orgId, name, role, description),
    async list(p, orgId, req, name) {
      await organizations.authorize(p, orgId, 'manage');
      const { items, total } = await repo.listTokens(db, orgId, name, req.limit, req.offset);
      return page(req, items, total);
    },
    async create(p, orgId, body) {
      const myRole = await organizations.authorize(p, orgId, 'manage');
      let role: Role | undefined;
      if (body.role || body.role_id) {
        role = resolveRole(body);
        if (!role) throw badRequest(body.role_id ? 'role_id is not a known role' : 'role must be one of OWNER, ADMIN, DEVOPS, VIEWER');
      } else if (body.scope === 'ADMIN') {
        role = 'ADMIN';
      } else if (body.role_id === null) {
        // an explicit null role_id (the public clients' type allows it): the least privilege
        role = 'VIEWER';
      } else {
        throw badRequest('role or role_id is required (role_id null gives a VIEWER token)');
      }
      if (!canGrant(myRole, role)) throw forbidden(`Your role ${myRole} cannot create a ${role} token`);
      return issue(db, orgId, body.name, role, body.description ?? '', p);
    },
    async remove(p, orgId, tokenId) {
      await organizations.authorize(p, orgId, 'manage');
      if (!(await repo.deleteToken(db, orgId, tokenId))) throw notFound('API token');
      identity.evictToken(tokenId);
    },
  };
}
