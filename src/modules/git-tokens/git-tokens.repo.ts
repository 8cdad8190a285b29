// SQL for the git_tokens table, and for the services that use a token. A service names its
// token inside services.spec (an application's git_repository, a job's
// source.docker.git_repository, each of a workflow's project_repositories), so "who uses this
// token" is read from the organization's services' specs (services_organization_idx), not from a
// foreign key (decision 0340).
import type { Queryable } from '../../db/db.ts';
import type { ConstraintMessages } from '../../db/errors.ts';
import { iso, isoRequired } from '../../lib/text.ts';

/** the user-facing messages of this module's constraints (composed in src/modules/constraints.ts) */
export const GIT_TOKEN_CONSTRAINTS: ConstraintMessages = {
  git_tokens_org_name_key: { status: 409, message: 'Git token name is already taken in this organization' },
};

interface GitTokenRow {
  id: string; organization_id: string; name: string; description: string; type: string; workspace: string | null;
  git_api_url: string; token_sealed: string; expired_at: Date | null; created_at: Date; updated_at: Date | null;
}

export interface GitTokenRecord {
  id: string; organizationId: string; name: string; description: string; type: string; workspace: string | null;
  gitApiUrl: string; tokenSealed: string; expiredAt: string | null; createdAt: string; updatedAt: string | null;
}

const COLUMNS = 'id, organization_id, name, description, type, workspace, git_api_url, token_sealed, expired_at, created_at, updated_at';

function toRecord(r: GitTokenRow): GitTokenRecord {
  return {
    id: r.id, organizationId: r.organization_id, name: r.name, description: r.description, type: r.type, workspace: r.workspace,
    gitApiUrl: r.git_api_url, tokenSealed: r.token_sealed, expiredAt: iso(r.expired_at), createdAt: isoRequired(r.created_at), updatedAt: iso(r.updated_at),
  };
}

export async function findGitToken(db: Queryable, organizationId: string, id: string, forUpdate = false): Promise<GitTokenRecord | null> {
  const rows = await db.query<GitTokenRow>(
    `select ${COLUMNS} from git_tokens where id = $1 and organization_id = $2${forUpdate ? ' for update' : ''}`, [id, organizationId]);
  return rows[0] ? toRecord(rows[0]) : null;
}

/** which of `ids` are git tokens of the organization */
export async function existingGitTokenIds(db: Queryable, organizationId: string, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db.query<{ id: string }>('select id from git_tokens where organization_id = $1 and id = any($2::uuid[])', [organizationId, ids]);
  return new Set(rows.map((r) => r.id));
}

export async function listGitTokens(db: Queryable, organizationId: string, limit: number | null, offset: number, name: string | null): Promise<{ items: GitTokenRecord[]; total: number }> {
  const rows = await db.query<GitTokenRow & { total: number }>(
    `select ${COLUMNS}, count(*) over () as total from git_tokens where organization_id = $1 and ($4::text is null or lower(name) = lower($4))
      order by created_at, id limit $2 offset $3`, [organizationId, limit, offset, name]);
  let total = rows[0] ? Number(rows[0].total) : 0;
  if (!rows[0] && offset > 0) {
    const n = await db.query<{ n: number }>('select count(*)::int as n from git_tokens where organization_id = $1 and ($2::text is null or lower(name) = lower($2))', [organizationId, name]);
    total = n[0]?.n ?? 0;
  }
  return { items: rows.map(toRecord), total };
}

export interface GitTokenValues {
  name: string; description: string; type: string; workspace: string | null; gitApiUrl: string; tokenSealed: string; expiredAt: string | null;
}

export async function insertGitToken(db: Queryable, organizationId: string, v: GitTokenValues): Promise<GitTokenRecord> {
  const rows = await db.query<GitTokenRow>(
    `insert into git_tokens (organization_id, name, description, type, workspace, git_api_url, token_sealed, expired_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8) returning ${COLUMNS}`,
    [organizationId, v.name, v.description, v.type, v.workspace, v.gitApiUrl, v.tokenSealed, v.expiredAt]);
  return toRecord(rows[0]!);
}

export async function updateGitToken(db: Queryable, organizationId: string, id: string, v: GitTokenValues): Promise<GitTokenRecord | null> {
  const rows = await db.query<GitTokenRow>(
    `update git_tokens set name = $3, description = $4, type = $5, workspace = $6, git_api_url = $7, token_sealed = $8, expired_at = $9, updated_at = now()
      where id = $1 and organization_id = $2 returning ${COLUMNS}`,
    [id, organizationId, v.name, v.description, v.type, v.workspace, v.gitApiUrl, v.tokenSealed, v.expiredAt]);
  return rows[0] ? toRecord(rows[0]) : null;
}

export async function deleteGitToken(db: Queryable, organizationId: string, id: string): Promise<boolean> {
  return (await db.query('delete from git_tokens where id = $1 and organization_id = $2 returning id', [id, organizationId])).length > 0;
}

/**
 * One row per (service, token it names) of the organization: an application's and a git job's
 * repository token, each distinct token of a workflow's project_repositories. Ids compared in
 * lower case (how the services store them).
 */
const USES = `
  select s.id, s.name, s.type, s.spec, s.environment_id, s.project_id, lower(u.token_id) as git_token_id
    from services s
    cross join lateral (
      select s.spec #>> '{git_repository,git_token_id}' as token_id where s.type = 'APPLICATION'
      union
      select s.spec #>> '{source,docker,git_repository,git_token_id}' where s.type = 'JOB'
      union
      select r ->> 'git_token_id' from jsonb_array_elements(case when s.type = 'AGENTIC_WORKFLOW' and jsonb_typeof(s.spec -> 'project_repositories') = 'array'
        then s.spec -> 'project_repositories' else '[]'::jsonb end) r
    ) u
   where s.organization_id = $1 and u.token_id is not null`;

/** how many services use each of the tokens (absent: none) */
export async function countUses(db: Queryable, organizationId: string, tokenIds: readonly string[]): Promise<Map<string, number>> {
  if (tokenIds.length === 0) return new Map();
  const rows = await db.query<{ git_token_id: string; n: number }>(
    `select git_token_id, count(*)::int as n from (${USES}) x where git_token_id = any($2::text[]) group by git_token_id`,
    [organizationId, tokenIds.map((id) => id.toLowerCase())]);
  return new Map(rows.map((r) => [r.git_token_id, r.n]));
}

export interface UseRow {
  id: string; name: string; type: string; spec: Record<string, unknown>;
  environment_id: string; environment_name: string; project_id: string; project_name: string;
}

/** the services that use a token, by project, environment and service name */
export async function listUses(db: Queryable, organizationId: string, tokenId: string): Promise<UseRow[]> {
  return db.query<UseRow>(
    `select x.id, x.name, x.type, x.spec, e.id as environment_id, e.name as environment_name, p.id as project_id, p.name as project_name
       from (${USES}) x join environments e on e.id = x.environment_id join projects p on p.id = x.project_id
      where x.git_token_id = $2 order by lower(p.name), lower(e.name), lower(x.name), x.id`,
    [organizationId, tokenId.toLowerCase()]);
}
