// SQL of preview environments: the previews table (migration 0026), the services a pull request
// may preview, and the few writes a preview makes to the environments and services it made: the
// copy's branch switch, its expiry, and deleting it (only ever an environment of mode PREVIEW).
import type { Queryable } from '../../db/db.ts';
import { iso, isoRequired } from '../../lib/text.ts';
import type { Preview } from './previews.schemas.ts';
import type { PreviewState } from './previews.rules.ts';

export interface CandidateRow {
  id: string; type: string; name: string; spec: Record<string, unknown>; environment_id: string; environment_auto_preview: boolean;
}

/**
 * Applications and jobs (the services built from git) of environments that may have previews:
 * not being deleted, not previews themselves, not throwaway copies (expires_at); of one
 * organization or all.
 */
export async function candidateServices(db: Queryable, organizationId: string | null): Promise<CandidateRow[]> {
  return db.query<CandidateRow>(
    `select s.id, s.type, s.name, s.spec, s.environment_id, e.auto_preview as environment_auto_preview
       from services s join environments e on e.id = s.environment_id
      where s.type in ('APPLICATION', 'JOB') and not e.deleting and e.mode <> 'PREVIEW' and e.expires_at is null
        and ($1::uuid is null or s.organization_id = $1)
      order by s.environment_id, s.created_at, s.id`, [organizationId]);
}

export interface SourceRow { id: string; organization_id: string; project_id: string; name: string; deleting: boolean }

/** the source environment, locked: one pull-request event at a time per environment */
export async function lockSource(tx: Queryable, environmentId: string): Promise<SourceRow | null> {
  const rows = await tx.query<SourceRow>(
    'select id, organization_id, project_id, name, deleting from environments where id = $1 for update', [environmentId]);
  return rows[0] ?? null;
}

export interface PreviewRow {
  id: string; organization_id: string; source_environment_id: string; provider: string; repository_key: string; repository_url: string;
  pull_request_number: number; title: string; author: string | null; base_branch: string; head_branch: string; head_commit: string;
  preview_environment_id: string | null; preview_environment_name: string | null; state: PreviewState; message: string | null;
  created_at: Date; updated_at: Date | null;
  body: string | null; from_fork: boolean; approved_commit: string | null; approved_by: string | null; approved_at: Date | null;
}

const COLUMNS = `id, organization_id, source_environment_id, provider, repository_key, repository_url, pull_request_number, title, author,
  base_branch, head_branch, head_commit, preview_environment_id, preview_environment_name, state, message, created_at, updated_at,
  body, from_fork, approved_commit, approved_by, approved_at`;

/** one preview as the API shows it (without the provider's reporting) */
export function toPreview(r: PreviewRow): Omit<Preview, 'provider_status'> {
  return {
    id: r.id, created_at: isoRequired(r.created_at), updated_at: iso(r.updated_at), environment: { id: r.source_environment_id },
    provider: r.provider, repository_url: r.repository_url, pull_request_number: r.pull_request_number, title: r.title, author: r.author,
    base_branch: r.base_branch, head_branch: r.head_branch, head_commit: r.head_commit,
    preview_environment_id: r.preview_environment_id, preview_environment_name: r.preview_environment_name, state: r.state, message: r.message,
    from_fork: r.from_fork, approved_by: r.approved_by, approved_at: iso(r.approved_at),
  };
}

/** one preview by id (no lock), or null */
export async function findById(db: Queryable, id: string): Promise<PreviewRow | null> {
  const rows = await db.query<PreviewRow>(`select ${COLUMNS} from previews where id = $1`, [id]);
  return rows[0] ?? null;
}

/** one preview by id, locked (after its source environment's lock), or null */
export async function findByIdLocked(tx: Queryable, id: string): Promise<PreviewRow | null> {
  const rows = await tx.query<PreviewRow>(`select ${COLUMNS} from previews where id = $1 for update`, [id]);
  return rows[0] ?? null;
}

export async function findLocked(tx: Queryable, sourceId: string, repositoryKey: string, number: number): Promise<PreviewRow | null> {
  const rows = await tx.query<PreviewRow>(
    `select ${COLUMNS} from previews where source_environment_id = $1 and repository_key = $2 and pull_request_number = $3 for update`,
    [sourceId, repositoryKey, number]);
  return rows[0] ?? null;
}

export interface NewPreview {
  organizationId: string; sourceId: string; provider: string; repositoryKey: string; repositoryUrl: string; number: number; title: string;
  author: string | null; baseBranch: string; headBranch: string; headCommit: string; body: string | null; fromFork: boolean;
  state: PreviewState; message: string | null; previewEnvironment: { id: string; name: string } | null;
}

export async function insert(tx: Queryable, p: NewPreview): Promise<PreviewRow> {
  const rows = await tx.query<PreviewRow>(
    `insert into previews (organization_id, source_environment_id, provider, repository_key, repository_url, pull_request_number, title, author,
       base_branch, head_branch, head_commit, state, message, preview_environment_id, preview_environment_name, body, from_fork)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17) returning ${COLUMNS}`,
    [p.organizationId, p.sourceId, p.provider, p.repositoryKey, p.repositoryUrl, p.number, p.title, p.author, p.baseBranch, p.headBranch,
      p.headCommit, p.state, p.message, p.previewEnvironment?.id ?? null, p.previewEnvironment?.name ?? null, p.body, p.fromFork]);
  return rows[0]!;
}

export interface PreviewChange {
  state?: PreviewState; message?: string | null; title?: string; author?: string | null; headBranch?: string; headCommit?: string;
  baseBranch?: string; repositoryUrl?: string; previewEnvironment?: { id: string; name: string } | null;
  body?: string | null; fromFork?: boolean;
  /** an approval: the head commit approved, by whom (now) */
  approved?: { commit: string; by: string };
}

export async function update(tx: Queryable, id: string, c: PreviewChange): Promise<PreviewRow> {
  const rows = await tx.query<PreviewRow>(
    `update previews set state = coalesce($2, state), message = case when $3::boolean then $4 else message end,
       title = coalesce($5, title), author = case when $6::boolean then $7 else author end, head_branch = coalesce($8, head_branch),
       head_commit = coalesce($9, head_commit), base_branch = coalesce($10, base_branch), repository_url = coalesce($11, repository_url),
       preview_environment_id = case when $12::boolean then $13::uuid else preview_environment_id end,
       preview_environment_name = case when $12::boolean then $14 else preview_environment_name end,
       body = case when $15::boolean then $16 else body end, from_fork = coalesce($17, from_fork),
       approved_commit = coalesce($18, approved_commit), approved_by = coalesce($19, approved_by),
       approved_at = case when $18::text is null then approved_at else now() end, updated_at = now()
     where id = $1 returning ${COLUMNS}`,
    [id, c.state ?? null, c.message !== undefined, c.message ?? null, c.title ?? null, c.author !== undefined, c.author ?? null,
      c.headBranch ?? null, c.headCommit ?? null, c.baseBranch ?? null, c.repositoryUrl ?? null,
      c.previewEnvironment !== undefined, c.previewEnvironment?.id ?? null, c.previewEnvironment?.name ?? null,
      c.body !== undefined, c.body ?? null, c.fromFork ?? null, c.approved?.commit ?? null, c.approved?.by ?? null]);
  return rows[0]!;
}

/** open previews of the environment, other than `exceptId`'s */
export async function countOpen(tx: Queryable, sourceId: string, exceptId: string | null): Promise<number> {
  const rows = await tx.query<{ n: number }>(
    `select count(*)::int as n from previews where source_environment_id = $1 and state = 'OPEN' and ($2::uuid is null or id <> $2)`, [sourceId, exceptId]);
  return rows[0]!.n;
}

/** lower-case names of the project's environments that start with `prefix` (case-insensitive) */
export async function namesTaken(tx: Queryable, projectId: string, prefix: string): Promise<Set<string>> {
  const rows = await tx.query<{ name: string }>(
    `select lower(name) as name from environments where project_id = $1 and left(lower(name), length($2)) = lower($2)`, [projectId, prefix]);
  return new Set(rows.map((r) => r.name));
}

export interface CopyServiceRow { id: string; type: string; name: string; spec: Record<string, unknown>; created_at: Date; environment_auto_preview: boolean }

/** a copy's services; `created_at` their original's in the source (a clone's rows are all made at once), for the deploy order */
export async function servicesOf(tx: Queryable, environmentId: string): Promise<CopyServiceRow[]> {
  return tx.query<CopyServiceRow>(
    `select s.id, s.type, s.name, s.spec, coalesce(o.created_at, s.created_at) as created_at, e.auto_preview as environment_auto_preview
       from services s join environments e on e.id = s.environment_id
       left join services o on o.environment_id = e.cloned_from_id and lower(o.name) = lower(s.name)
      where s.environment_id = $1 order by 5, s.id`, [environmentId]);
}

export async function environmentExists(tx: Queryable, environmentId: string): Promise<boolean> {
  return (await tx.query('select 1 from environments where id = $1 and not deleting', [environmentId])).length > 0;
}

/** open previews first, then the most recently changed */
export async function listOf(db: Queryable, sourceId: string, limit: number | null, offset: number): Promise<{ items: Array<Omit<Preview, 'provider_status'>>; total: number }> {
  const rows = await db.query<PreviewRow>(
    `select ${COLUMNS} from previews where source_environment_id = $1
      order by (state = 'OPEN') desc, coalesce(updated_at, created_at) desc, id limit $2 offset $3`, [sourceId, limit, offset]);
  const total = await db.query<{ n: number }>('select count(*)::int as n from previews where source_environment_id = $1', [sourceId]);
  return { items: rows.map(toPreview), total: total[0]!.n };
}

/** open previews (and approved ones awaiting a new approval, copy kept) of environments about to be deleted whose copy is not among them */
export async function openCopiesOf(tx: Queryable, sourceIds: readonly string[]): Promise<Array<{ id: string; preview_environment_id: string }>> {
  return tx.query(
    `select id, preview_environment_id from previews
      where source_environment_id = any($1::uuid[]) and state in ('OPEN', 'AWAITING_APPROVAL') and preview_environment_id is not null
        and not (preview_environment_id = any($1::uuid[])) order by id for update`, [sourceIds]);
}

/**
 * Closes the open previews whose copy is among `environmentIds` (being deleted): with `message`,
 * or saying whether the copy expired or was deleted.
 */
export async function closeRemoved(tx: Queryable, environmentIds: readonly string[], message: string | null): Promise<number> {
  return (await tx.query(
    `update previews p set state = 'CLOSED', updated_at = now(), message = coalesce($2, case when e.expires_at <= now()
        then 'the preview environment expired (no event of the pull request within PREVIEW_TTL_HOURS) and was deleted'
        else 'the preview environment was deleted' end)
       from environments e
      where e.id = p.preview_environment_id and p.preview_environment_id = any($1::uuid[]) and p.state = 'OPEN' returning p.id`,
    [environmentIds, message])).length;
}

/** the environments with a preview of this pull request in one of `states`, and the repository's key */
export async function environmentsWithPreview(db: Queryable, repositoryKeys: readonly string[], number: number, organizationId: string | null,
  states: readonly string[]): Promise<Array<{ source_environment_id: string; repository_key: string }>> {
  return db.query(
    `select source_environment_id, repository_key from previews
      where repository_key = any($1::text[]) and pull_request_number = $2 and ($3::uuid is null or organization_id = $3) and state = any($4::text[])
      order by created_at, id`, [repositoryKeys, number, organizationId, states]);
}
