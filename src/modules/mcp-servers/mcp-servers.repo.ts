// SQL for the mcp_servers table (owner's sub and name joined from users).
import type { Queryable } from '../../db/db.ts';
import type { ConstraintMessages } from '../../db/errors.ts';
import { isoRequired } from '../../lib/text.ts';
import type { OwnedScope } from '../llm-providers/ownership.ts';
import type { McpServer } from './mcp-servers.schemas.ts';

/** the user-facing messages of this module's constraints (composed in src/modules/constraints.ts) */
export const MCP_SERVER_CONSTRAINTS: ConstraintMessages = {
  mcp_servers_org_name_key: { status: 409, message: 'MCP server name is already taken in the organization' },
  mcp_servers_user_name_key: { status: 409, message: 'You already have a personal MCP server with this name in this organization' },
};

export interface McpRow {
  id: string; organization_id: string; name: string; description: string; url: string; scope: OwnedScope;
  owner_user_id: string | null; owner_sub: string | null; owner_name: string | null; header_names: string[];
  created_at: Date; updated_at: Date | null;
}

const SELECT = `select m.id, m.organization_id, m.name, m.description, m.url, m.scope, m.owner_user_id,
  u.sub as owner_sub, coalesce(u.name, u.email) as owner_name, m.header_names, m.created_at, m.updated_at
  from mcp_servers m left join users u on u.id = m.owner_user_id`;

export function toMcpServer(r: McpRow): McpServer {
  return {
    id: r.id, created_at: isoRequired(r.created_at), updated_at: isoRequired(r.updated_at ?? r.created_at),
    name: r.name, description: r.description, url: r.url, header_names: r.header_names ?? [], scope: r.scope,
    owner_user_sub: r.owner_sub ?? '', owner_name: r.owner_name ?? '',
  };
}

/** the sealed header values of connectors, by id (one statement for a run's connectors) */
export async function sealedHeadersOf(db: Queryable, ids: readonly string[]): Promise<Map<string, string | null>> {
  if (ids.length === 0) return new Map();
  const rows = await db.query<{ id: string; headers_sealed: string | null }>('select id, headers_sealed from mcp_servers where id = any($1::uuid[])', [ids]);
  return new Map(rows.map((r) => [r.id, r.headers_sealed]));
}

export async function findMcpServer(db: Queryable, id: string): Promise<McpRow | null> {
  const rows = await db.query<McpRow>(`${SELECT} where m.id = $1`, [id]);
  return rows[0] ?? null;
}

export async function findMcpServers(db: Queryable, ids: readonly string[]): Promise<McpRow[]> {
  if (ids.length === 0) return [];
  return db.query<McpRow>(`${SELECT} where m.id = any($1::uuid[])`, [ids]);
}

export async function listVisibleMcpServers(db: Queryable, orgId: string, userId: string | null, limit: number | null, offset: number): Promise<{ rows: McpRow[]; total: number }> {
  const where = `where m.organization_id = $1 and (m.scope = 'ORGANIZATION' or m.owner_user_id = $2)`;
  const rows = await db.query<McpRow>(`${SELECT} ${where} order by m.created_at, m.id limit $3 offset $4`, [orgId, userId, limit, offset]);
  const count = await db.query<{ n: number }>(`select count(*)::int as n from mcp_servers m ${where}`, [orgId, userId]);
  return { rows, total: count[0]!.n };
}

export interface McpValues { name: string; description: string; url: string; headerNames: string[]; headersSealed: string | null }

export async function insertMcpServer(db: Queryable, orgId: string, scope: OwnedScope, ownerUserId: string | null, v: McpValues): Promise<string> {
  const rows = await db.query<{ id: string }>(
    `insert into mcp_servers (organization_id, name, description, url, scope, owner_user_id, header_names, headers_sealed)
     values ($1, $2, $3, $4, $5, $6, $7::jsonb, $8) returning id`,
    [orgId, v.name, v.description, v.url, scope, ownerUserId, JSON.stringify(v.headerNames), v.headersSealed]);
  return rows[0]!.id;
}

export async function updateMcpServer(db: Queryable, id: string, v: McpValues): Promise<void> {
  await db.query(
    `update mcp_servers set name = $2, description = $3, url = $4, header_names = $5::jsonb, headers_sealed = $6, updated_at = now() where id = $1`,
    [id, v.name, v.description, v.url, JSON.stringify(v.headerNames), v.headersSealed]);
}

export async function deleteMcpServer(db: Queryable, id: string): Promise<void> {
  await db.query('delete from mcp_servers where id = $1', [id]);
}
