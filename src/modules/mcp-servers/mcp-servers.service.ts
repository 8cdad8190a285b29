// MCP connectors of an organization: shared (ORGANIZATION, ADMIN+) or personal (USER: seen,
// managed and attachable only by the signed-in member who made it). POST and PUT are full
// replaces, headers included; header values are sealed and only their names are returned.
import type { Db, Queryable } from '../../db/db.ts';
import { AppError, badRequest, forbidden, notFound } from '../../lib/errors.ts';
import type { Sealer } from '../../lib/crypto.ts';
import { page, type PageInfo, type PageRequest } from '../../http/pagination.ts';
import type { Principal } from '../access/principal.ts';
import type { OrganizationsService } from '../organizations/organizations.service.ts';
import { canChange, canSee, createRefusal } from '../llm-providers/ownership.ts';
import * as repo from './mcp-servers.repo.ts';
import type { McpServer, McpServerRequest } from './mcp-servers.schemas.ts';

export interface McpServersService {
  list(p: Principal, orgId: string, req: PageRequest): Promise<{ results: McpServer[]; pagination: PageInfo }>;
  create(p: Principal, orgId: string, body: McpServerRequest): Promise<McpServer>;
  get(p: Principal, id: string): Promise<McpServer>;
  update(p: Principal, id: string, body: McpServerRequest): Promise<McpServer>;
  remove(p: Principal, id: string): Promise<void>;
  /** for workflows (no caller to authorize): the connectors with these ids (those that still exist) */
  findMany(db: Queryable, ids: readonly string[]): Promise<repo.McpRow[]>;
  /** for a workflow run as it starts (no caller): the sealed header values of connectors, by id */
  sealedHeaders(db: Queryable, ids: readonly string[]): Promise<Map<string, string | null>>;
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/;

export function createMcpServersService(deps: { db: Db; sealer: Sealer; organizations: OrganizationsService }): McpServersService {
  const { db, sealer, organizations } = deps;

  function values(body: McpServerRequest): repo.McpValues {
    const headers = body.headers ?? {};
    const names = Object.keys(headers);
    const seen = new Set<string>();
    for (const n of names) {
      if (!HEADER_NAME.test(n)) throw badRequest(`headers: '${n}' is not a valid HTTP header name`);
      if (seen.has(n.toLowerCase())) throw badRequest(`headers: '${n}' is given twice`);
      seen.add(n.toLowerCase());
    }
    return {
      name: body.name.trim(), description: body.description ?? '', url: body.url, headerNames: names,
      headersSealed: names.length > 0 ? sealer.seal(JSON.stringify(headers)) : null,
    };
  }

  async function visible(p: Principal, id: string) {
    const row = await repo.findMcpServer(db, id);
    if (!row) throw notFound('MCP server');
    const role = await organizations.authorize(p, row.organization_id, 'read');
    if (!canSee(p, { scope: row.scope, ownerUserId: row.owner_user_id })) throw notFound('MCP server');
    return { row, role };
  }

  async function changeable(p: Principal, id: string) {
    const { row, role } = await visible(p, id);
    if (!canChange(p, role, { scope: row.scope, ownerUserId: row.owner_user_id })) {
      throw forbidden(row.scope === 'USER' ? 'Access forbidden: DEVOPS or higher is needed' : 'Access forbidden: ADMIN or higher manages organization MCP servers');
    }
    return row;
  }

  const one = async (id: string) => repo.toMcpServer((await repo.findMcpServer(db, id))!);

  return {
    findMany: (q, ids) => repo.findMcpServers(q, ids),
    sealedHeaders: (q, ids) => repo.sealedHeadersOf(q, ids),
    async list(p, orgId, req) {
      await organizations.authorize(p, orgId, 'read');
      const { rows, total } = await repo.listVisibleMcpServers(db, orgId, p.kind === 'user' ? p.id : null, req.limit, req.offset);
      return page(req, rows.map(repo.toMcpServer), total);
    },
    async create(p, orgId, body) {
      const role = await organizations.authorize(p, orgId, 'read');
      const scope = body.scope ?? 'ORGANIZATION';
      const refusal = createRefusal(p, role, scope);
      if (refusal) throw new AppError(refusal.status, refusal.status === 400 ? 'bad_request' : 'forbidden', refusal.message);
      const id = await repo.insertMcpServer(db, orgId, scope, p.kind === 'user' ? p.id : null, values(body));
      return one(id);
    },
    async get(p, id) {
      return repo.toMcpServer((await visible(p, id)).row);
    },
    async update(p, id, body) {
      const row = await changeable(p, id);
      if (body.scope !== undefined && body.scope !== row.scope) throw badRequest('scope cannot be changed; create a new MCP server instead');
      await repo.updateMcpServer(db, id, values(body));
      return one(id);
    },
    async remove(p, id) {
      await changeable(p, id);
      await repo.deleteMcpServer(db, id);
    },
  };
}
