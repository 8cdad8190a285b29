// SQL for API tokens: only the SHA-256 hash of a token is stored.
import type { Queryable } from '../../db/db.ts';
import { selectPage } from '../../db/page.ts';
import type { ConstraintMessages } from '../../db/errors.ts';
import { iso, isoRequired } from '../../lib/text.ts';
import { ROLE_IDS, ROLE_NAMES, type Role } from '../access/roles.ts';
import type { ApiToken } from './tokens.schemas.ts';

/** the user-facing messages of this module's constraints (composed in src/modules/constraints.ts) */
export const TOKEN_CONSTRAINTS: ConstraintMessages = {
  api_tokens_org_name_key: { status: 409, message: 'Organization Api Token name is already taken' },
};

interface TokenRow {
  id: string; name: string; description: string; role: Role; created_by_name: string | null;
  created_at: Date; updated_at: Date | null; last_used_at: Date | null;
}

const COLUMNS = 'id, name, description, role, created_by_name, created_at, updated_at, last_used_at';

function toToken(r: TokenRow): ApiToken {
  return {
    id: r.id, created_at: isoRequired(r.created_at), updated_at: iso(r.updated_at), name: r.name, description: r.description,
    role: r.role, role_name: ROLE_NAMES[r.role], role_id: ROLE_IDS[r.role], creator_name: r.created_by_name,
    last_used_at: iso(r.last_used_at),
  };
}

export async function insertToken(db: Queryable, t: {
  organizationId: string; name: string; description: string; role: Role; hash: string; createdBy: string | null; createdByName: string | null;
}): Promise<ApiToken> {
  const rows = await db.query<TokenRow>(
    `insert into api_tokens (organization_id, name, description, role, token_hash, created_by_user_id, created_by_name)
     values ($1, $2, $3, $4, $5, $6, $7) returning ${COLUMNS}`,
    [t.organizationId, t.name, t.description, t.role, t.hash, t.createdBy, t.createdByName]);
  return toToken(rows[0]!);
}

export async function listTokens(db: Queryable, orgId: string, nameFilter: string | undefined, limit: number | null, offset: number): Promise<{ items: ApiToken[]; total: number }> {
  const where = 'where organization_id = $1 and ($2::text is null or strpos(lower(name), lower($2)) > 0)';
  const { rows, total } = await selectPage<TokenRow>(db,
    `select ${COLUMNS} from api_tokens ${where} order by created_at, id limit $3 offset $4`, [orgId, nameFilter ?? null],
    `select count(*)::int as n from api_tokens ${where}`, limit, offset);
  return { items: rows.map(toToken), total };
}

export async function deleteToken(db: Queryable, orgId: string, tokenId: string): Promise<boolean> {
  return (await db.query('delete from api_tokens where organization_id = $1 and id = $2 returning id', [orgId, tokenId])).length > 0;
}

/** idempotent: the bootstrap token is (re)created with this hash as an OWNER token named `bootstrap` */
export async function upsertBootstrapToken(db: Queryable, orgId: string, hash: string): Promise<void> {
  await db.query(
    `insert into api_tokens (organization_id, name, description, role, token_hash, created_by_name)
     values ($1, 'bootstrap', 'created from BOOTSTRAP_TOKEN at start', 'OWNER', $2, 'berth')
     on conflict (token_hash) do nothing`, [orgId, hash]);
}

export async function countTokens(db: Queryable, orgId: string): Promise<number> {
  return (await db.query<{ n: number }>('select count(*)::int as n from api_tokens where organization_id = $1', [orgId]))[0]!.n;
}

/** the token with this hash (authentication), or null */
export async function findTokenByHash(db: Queryable, hash: string): Promise<{ id: string; organizationId: string; role: Role; name: string } | null> {
  const rows = await db.query<{ id: string; organization_id: string; role: Role; name: string }>(
    'select id, organization_id, role, name from api_tokens where token_hash = $1', [hash]);
  const r = rows[0];
  return r ? { id: r.id, organizationId: r.organization_id, role: r.role, name: r.name } : null;
}

export async function touchToken(db: Queryable, tokenId: string): Promise<void> {
  await db.query('update api_tokens set last_used_at = now() where id = $1', [tokenId]);
}
