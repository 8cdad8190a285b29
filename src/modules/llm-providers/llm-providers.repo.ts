// SQL for the llm_providers table (owner's sub and name joined from users).
import type { Queryable } from '../../db/db.ts';
import type { ConstraintMessages } from '../../db/errors.ts';
import { isoRequired } from '../../lib/text.ts';
import type { OwnedScope } from './ownership.ts';
import type { LlmProvider } from './llm-providers.schemas.ts';

/** the user-facing messages of this module's constraints (composed in src/modules/constraints.ts) */
export const LLM_PROVIDER_CONSTRAINTS: ConstraintMessages = {
  llm_providers_org_name_key: { status: 409, message: 'LLM provider name is already taken in this organization' },
  llm_providers_user_name_key: { status: 409, message: 'You already have a personal LLM provider with this name in this organization' },
  agentic_workflows_llm_provider_in_use: { status: 409, message: 'LLM provider is used by an agentic workflow; change the workflow first' },
};

export interface ProviderRow {
  id: string; organization_id: string; name: string; description: string; type: string; scope: OwnedScope;
  owner_user_id: string | null; owner_sub: string | null; owner_name: string | null; region: string; base_url: string;
  credential_sealed: string | null; created_at: Date; updated_at: Date | null;
}

const SELECT = `select p.id, p.organization_id, p.name, p.description, p.type, p.scope, p.owner_user_id,
  u.sub as owner_sub, coalesce(u.name, u.email) as owner_name, p.region, p.base_url, p.credential_sealed, p.created_at, p.updated_at
  from llm_providers p left join users u on u.id = p.owner_user_id`;

export function toProvider(r: ProviderRow): LlmProvider {
  return {
    id: r.id, created_at: isoRequired(r.created_at), updated_at: isoRequired(r.updated_at ?? r.created_at),
    name: r.name, description: r.description, type: r.type, has_credential: r.credential_sealed !== null,
    scope: r.scope, owner_user_sub: r.owner_sub ?? '', owner_name: r.owner_name ?? '', region: r.region,
    base_url: r.base_url,
  };
}

export async function findProvider(db: Queryable, id: string): Promise<ProviderRow | null> {
  const rows = await db.query<ProviderRow>(`${SELECT} where p.id = $1`, [id]);
  return rows[0] ?? null;
}

/** providers of an organization the caller may see: shared ones and the caller's own */
export async function listVisibleProviders(db: Queryable, orgId: string, userId: string | null, limit: number | null, offset: number): Promise<{ rows: ProviderRow[]; total: number }> {
  const where = `where p.organization_id = $1 and (p.scope = 'ORGANIZATION' or p.owner_user_id = $2)`;
  const rows = await db.query<ProviderRow>(`${SELECT} ${where} order by p.created_at, p.id limit $3 offset $4`, [orgId, userId, limit, offset]);
  const count = await db.query<{ n: number }>(`select count(*)::int as n from llm_providers p ${where}`, [orgId, userId]);
  return { rows, total: count[0]!.n };
}

export interface ProviderValues {
  name: string; description: string; type: string; scope: OwnedScope; ownerUserId: string | null; region: string; baseUrl: string;
  credentialSealed: string | null;
}

export async function insertProvider(db: Queryable, orgId: string, v: ProviderValues): Promise<string> {
  const rows = await db.query<{ id: string }>(
    `insert into llm_providers (organization_id, name, description, type, scope, owner_user_id, region, base_url, credential_sealed)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9) returning id`,
    [orgId, v.name, v.description, v.type, v.scope, v.ownerUserId, v.region, v.baseUrl, v.credentialSealed]);
  return rows[0]!.id;
}

export async function updateProvider(db: Queryable, id: string, v: Omit<ProviderValues, 'scope' | 'ownerUserId'>): Promise<void> {
  await db.query(
    `update llm_providers set name = $2, description = $3, type = $4, region = $5, base_url = $6, credential_sealed = $7, updated_at = now() where id = $1`,
    [id, v.name, v.description, v.type, v.region, v.baseUrl, v.credentialSealed]);
}

export async function deleteProvider(db: Queryable, id: string): Promise<void> {
  await db.query('delete from llm_providers where id = $1', [id]);
}
