// LLM providers of an organization: shared (ORGANIZATION, managed by ADMIN+) or personal (USER,
// seen and managed only by the signed-in member who made it, DEVOPS+). The credential is sealed
// and never returned. Workflows take their model credential from one (see workflows.service), and
// its optional base_url (an Anthropic-compatible endpoint) unless the workflow names its own.
import type { Db, Queryable } from '../../db/db.ts';
import { AppError, badRequest, conflict, forbidden, invalid, notFound } from '../../lib/errors.ts';
import type { Sealer } from '../../lib/crypto.ts';
import { page, type PageInfo, type PageRequest } from '../../http/pagination.ts';
import type { Principal } from '../access/principal.ts';
import type { OrganizationsService } from '../organizations/organizations.service.ts';
import { baseUrlProblem } from './base-url.ts';
import { canChange, canSee, createRefusal } from './ownership.ts';
import * as repo from './llm-providers.repo.ts';
import type { LlmProvider, LlmProviderCreateRequest, LlmProviderEditRequest } from './llm-providers.schemas.ts';

export interface LlmProvidersService {
  list(p: Principal, orgId: string, req: PageRequest): Promise<{ results: LlmProvider[]; pagination: PageInfo }>;
  create(p: Principal, orgId: string, body: LlmProviderCreateRequest): Promise<LlmProvider>;
  get(p: Principal, id: string): Promise<LlmProvider>;
  update(p: Principal, id: string, body: LlmProviderEditRequest): Promise<LlmProvider>;
  remove(p: Principal, id: string): Promise<void>;
  /** the provider as a workflow may reference it, or null (no such provider) */
  find(db: Queryable, id: string): Promise<repo.ProviderRow | null>;
}

function checkRegion(type: string, region: string): void {
  if (type === 'BEDROCK' && region.trim() === '') throw badRequest('region is required for a BEDROCK provider (e.g. us-east-1)');
}

/** '' (none) or an http(s) URL: 400 validation_error naming base_url otherwise */
function checkBaseUrl(baseUrl: string): void {
  const why = baseUrl === '' ? null : baseUrlProblem(baseUrl);
  if (why) throw invalid([{ field: 'base_url', message: `base_url ${why}` }]);
}

// For other modules: a workflow run reads its provider (sealed credential, region, base_url) when it
// starts, without a principal; never through llm-providers.repo.ts.
export type { ProviderRow } from './llm-providers.repo.ts';
/** one provider's row, its sealed credential included, or null */

/** `workflowsUsing`: how many agentic workflows use a provider (the workflows module's count, given by the composition root) */
export function createLlmProvidersService(deps: {
  db: Db; sealer: Sealer; organizations: OrganizationsService; workflowsUsing: (tx: Queryable, providerId: string) => Promise<number>;
}): LlmProvidersService {
  const { db, sealer, organizations, workflowsUsing } = deps;
  const userId = (p: Principal) => (p.kind === 'user' ? p.id : null);

  async function visible(p: Principal, id: string) {
    const row = await repo.findProvider(db, id);
    if (!row) throw notFound('LLM provider');
    const role = await organizations.authorize(p, row.organization_id, 'read');
    if (!canSee(p, { scope: row.scope, ownerUserId: row.owner_user_id })) throw notFound('LLM provider');
    return { row, role };
  }

  async function changeable(p: Principal, id: string) {
    const { row, role } = await visible(p, id);
    if (!canChange(p, role, { scope: row.scope, ownerUserId: row.owner_user_id })) {
      throw forbidden(row.scope === 'USER' ? 'Access forbidden: DEVOPS or higher is needed' : 'Access forbidden: ADMIN or higher manages organization LLM providers');
    }
    return row;
  }

  async function one(id: string): Promise<LlmProvider> {
    return repo.toProvider((await repo.findProvider(db, id))!);
  }

  return {
    find: (q, id) => repo.findProvider(q, id),
    async list(p, orgId, req) {
      await organizations.authorize(p, orgId, 'read');
      const { rows, total } = await repo.listVisibleProviders(db, orgId, userId(p), req.limit, req.offset);
      return page(req, rows.map(repo.toProvider), total);
    },
    async create(p, orgId, body) {
      const role = await organizations.authorize(p, orgId, 'read');
      const scope = body.scope ?? 'ORGANIZATION';
      const refusal = createRefusal(p, role, scope);
      if (refusal) throw new AppError(refusal.status, refusal.status === 400 ? 'bad_request' : 'forbidden', refusal.message);
      const region = body.region ?? '';
      checkRegion(body.type, region);
      const baseUrl = body.base_url ?? '';
      checkBaseUrl(baseUrl);
      const id = await repo.insertProvider(db, orgId, {
        name: body.name.trim(), description: body.description ?? '', type: body.type, scope, ownerUserId: userId(p), region, baseUrl,
        credentialSealed: body.credential ? sealer.seal(body.credential) : null,
      });
      return one(id);
    },
    async get(p, id) {
      return repo.toProvider((await visible(p, id)).row);
    },
    async update(p, id, body) {
      const row = await changeable(p, id);
      if (body.scope !== undefined && body.scope !== row.scope) throw badRequest('scope cannot be changed; create a new provider instead');
      const type = body.type ?? row.type;
      const region = body.region === undefined ? row.region : (body.region ?? '');
      checkRegion(type, region);
      const baseUrl = body.base_url === undefined ? row.base_url : (body.base_url ?? '');
      checkBaseUrl(baseUrl);
      const credentialSealed = body.credential === undefined ? row.credential_sealed : (body.credential ? sealer.seal(body.credential) : null);
      await db.transaction(async (tx) => {
        if (type !== row.type) {
          if (await workflowsUsing(tx, id) > 0) throw conflict('LLM provider is used by an agentic workflow of another model type; its type cannot change');
        }
        await repo.updateProvider(tx, id, {
          name: body.name?.trim() ?? row.name, description: body.description === undefined ? row.description : (body.description ?? ''),
          type, region, baseUrl, credentialSealed,
        });
      });
      return one(id);
    },
    async remove(p, id) {
      await changeable(p, id);
      await repo.deleteProvider(db, id);
    },
  };
}
