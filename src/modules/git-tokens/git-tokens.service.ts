// Git tokens of an organization: the credentials berth clones private repositories with
// (applications, jobs built from git, agentic workflows' project_repositories). VIEWER reads,
// ADMIN manages (as container registries). The token is sealed at rest and never returned; an
// edit without `token` keeps the stored one. A token some service uses cannot be deleted (409
// naming them). How other modules use tokens (refusing unknown ones, unsealing one for a clone)
// is git-credentials.ts.
import type { Db, Queryable } from '../../db/db.ts';
import { page, type PageInfo, type PageRequest } from '../../http/pagination.ts';
import type { Sealer } from '../../lib/crypto.ts';
import { conflict, notFound } from '../../lib/errors.ts';
import type { Principal } from '../access/principal.ts';
import type { OrganizationsService } from '../organizations/organizations.service.ts';
import * as repo from './git-tokens.repo.ts';
import {
  associatedServiceType, checkTokenValue, inUseMessage, normalizeApiUrl, normalizeExpiry, normalizeWorkspace,
} from './git-tokens.rules.ts';
import type { GitToken, GitTokenAssociatedService, GitTokenEditRequest, GitTokenRequest } from './git-tokens.schemas.ts';

type List<T> = { results: T[]; pagination: PageInfo };

export interface GitTokensService {
  list(p: Principal, organizationId: string, req: PageRequest): Promise<List<GitToken>>;
  create(p: Principal, organizationId: string, body: GitTokenRequest): Promise<GitToken>;
  get(p: Principal, organizationId: string, gitTokenId: string): Promise<GitToken>;
  update(p: Principal, organizationId: string, gitTokenId: string, body: GitTokenEditRequest): Promise<GitToken>;
  remove(p: Principal, organizationId: string, gitTokenId: string): Promise<void>;
  associatedServices(p: Principal, organizationId: string, gitTokenId: string, req: PageRequest): Promise<List<GitTokenAssociatedService>>;
}

const LABEL = 'Git token';

function toResponse(r: repo.GitTokenRecord, usedBy: number): GitToken {
  return {
    id: r.id, created_at: r.createdAt, updated_at: r.updatedAt, name: r.name, description: r.description, type: r.type,
    ...(r.expiredAt ? { expired_at: r.expiredAt } : {}),
    ...(r.workspace ? { workspace: r.workspace } : {}),
    associated_services_count: usedBy, git_api_url: r.gitApiUrl,
  };
}

function toAssociated(u: repo.UseRow): GitTokenAssociatedService {
  return {
    project_id: u.project_id, project_name: u.project_name, environment_id: u.environment_id, environment_name: u.environment_name,
    service_id: u.id, service_name: u.name, service_type: associatedServiceType(u.type, u.spec),
  };
}

/** the stored values of a request (all checked: 400 naming the member otherwise) */
function values(body: GitTokenRequest | GitTokenEditRequest, sealer: Sealer, current: repo.GitTokenRecord | null): repo.GitTokenValues {
  if (body.token !== undefined) checkTokenValue(body.token);
  const name = body.name.trim();
  return {
    name,
    description: body.description === undefined ? (current?.description ?? '') : (body.description ?? ''),
    type: body.type,
    workspace: normalizeWorkspace(body.type, body.workspace === undefined ? current?.workspace : body.workspace),
    gitApiUrl: normalizeApiUrl(body.git_api_url === undefined ? current?.gitApiUrl : body.git_api_url),
    tokenSealed: body.token !== undefined ? sealer.seal(body.token) : current!.tokenSealed,
    expiredAt: body.expired_at === undefined ? (current?.expiredAt ?? null) : normalizeExpiry(body.expired_at),
  };
}

export function createGitTokensService(deps: { db: Db; organizations: OrganizationsService; sealer: Sealer }): GitTokensService {
  const { db, organizations, sealer } = deps;

  async function load(q: Queryable, organizationId: string, id: string, forUpdate = false): Promise<repo.GitTokenRecord> {
    const r = await repo.findGitToken(q, organizationId, id, forUpdate);
    if (!r) throw notFound(LABEL);
    return r;
  }

  async function withCount(r: repo.GitTokenRecord): Promise<GitToken> {
    return toResponse(r, (await repo.countUses(db, r.organizationId, [r.id])).get(r.id) ?? 0);
  }

  return {
    async list(p, organizationId, req) {
      await organizations.authorize(p, organizationId, 'read');
      const { items, total } = await repo.listGitTokens(db, organizationId, req.limit, req.offset, req.name ?? null);
      const counts = await repo.countUses(db, organizationId, items.map((i) => i.id));
      return page(req, items.map((i) => toResponse(i, counts.get(i.id) ?? 0)), total);
    },
    async create(p, organizationId, body) {
      await organizations.authorize(p, organizationId, 'manage');
      return toResponse(await repo.insertGitToken(db, organizationId, values(body, sealer, null)), 0);
    },
    async get(p, organizationId, gitTokenId) {
      await organizations.authorize(p, organizationId, 'read');
      return withCount(await load(db, organizationId, gitTokenId));
    },
    async update(p, organizationId, gitTokenId, body) {
      await organizations.authorize(p, organizationId, 'manage');
      const current = await load(db, organizationId, gitTokenId);
      const updated = await repo.updateGitToken(db, organizationId, gitTokenId, values(body, sealer, current));
      if (!updated) throw notFound(LABEL);
      return withCount(updated);
    },
    async remove(p, organizationId, gitTokenId) {
      await organizations.authorize(p, organizationId, 'manage');
      await db.transaction(async (tx) => {
        const token = await load(tx, organizationId, gitTokenId, true);
        const uses = await repo.listUses(tx, organizationId, gitTokenId);
        if (uses.length > 0) {
          throw conflict(inUseMessage(token.name, uses.map((u) => ({
            serviceName: u.name, serviceType: associatedServiceType(u.type, u.spec), projectName: u.project_name, environmentName: u.environment_name,
          }))), 'git_token_in_use');
        }
        await repo.deleteGitToken(tx, organizationId, gitTokenId);
      });
    },
    async associatedServices(p, organizationId, gitTokenId, req) {
      await organizations.authorize(p, organizationId, 'read');
      await load(db, organizationId, gitTokenId);
      const all = (await repo.listUses(db, organizationId, gitTokenId)).map(toAssociated);
      const results = req.limit === null ? all : all.slice(req.offset, req.offset + req.limit);
      return page(req, results, all.length);
    },
  };
}
