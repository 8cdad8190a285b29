// SQL for the environments table, and the copy of an environment's services for a clone.
import type { Queryable } from '../../db/db.ts';
import { selectPage, storedCount } from '../../db/page.ts';
import type { ConstraintMessages } from '../../db/errors.ts';
import { iso, isoRequired } from '../../lib/text.ts';
import { AuditedInsert, returningInsert, type CreationEvent } from '../audit/audit.creation.ts';
import type { Environment } from './environments.schemas.ts';

/** the user-facing messages of this module's constraints (composed in src/modules/constraints.ts) */
export const ENVIRONMENT_CONSTRAINTS: ConstraintMessages = {
  environments_project_name_key: { status: 409, message: 'Environment name is already taken in this project' },
};

interface EnvironmentRow {
  id: string; organization_id: string; project_id: string; cluster_id: string; name: string; mode: string; auto_preview: boolean;
  expires_at: Date | null; cloned_from_id: string | null; created_at: Date; updated_at: Date | null;
  cluster_name: string; cloud_provider: string; region: string;
}

const SELECT = `select e.id, e.organization_id, e.project_id, e.cluster_id, e.name, e.mode, e.auto_preview, e.expires_at,
  e.cloned_from_id, e.created_at, e.updated_at, c.name as cluster_name, c.cloud_provider, c.region
  from environments e join clusters c on c.id = e.cluster_id`;

// whole statements built once (issue 15: a per-call template is a new string to hash)
const FIND_ENVIRONMENT = `${SELECT} where e.id = $1`;
const ENVIRONMENTS_PAGE = `${SELECT} where e.project_id = $1 order by e.created_at, e.id limit $2 offset $3`;
const ENVIRONMENTS_BY_NAME_PAGE = `${SELECT} where e.project_id = $1 and lower(e.name) = lower($2) order by e.created_at, e.id limit $3 offset $4`;
const ENVIRONMENTS_TOTAL = storedCount(`kind = 'environments'`);

function toEnvironment(r: EnvironmentRow): Environment {
  return {
    id: r.id, created_at: isoRequired(r.created_at), updated_at: iso(r.updated_at), name: r.name, mode: r.mode,
    cluster_id: r.cluster_id, cluster_name: r.cluster_name,
    cloud_provider: { provider: r.cloud_provider.toLowerCase(), cluster: r.region },
    project: { id: r.project_id }, organization: { id: r.organization_id }, auto_preview: r.auto_preview,
    expires_at: iso(r.expires_at), cloned_from_id: r.cloned_from_id,
  };
}

export async function findEnvironment(db: Queryable, id: string): Promise<Environment | null> {
  const rows = await db.query<EnvironmentRow>(FIND_ENVIRONMENT, [id]);
  return rows[0] ? toEnvironment(rows[0]) : null;
}

export async function listEnvironments(db: Queryable, projectId: string, limit: number | null, offset: number, name: string | null = null): Promise<{ items: Environment[]; total: number }> {
  const { rows, total } = name === null
    ? await selectPage<EnvironmentRow>(db, ENVIRONMENTS_PAGE, [projectId], ENVIRONMENTS_TOTAL, limit, offset)
    : await selectPage<EnvironmentRow>(db, ENVIRONMENTS_BY_NAME_PAGE, [projectId, name],
      'select count(*)::int as n from environments e where e.project_id = $1 and lower(e.name) = lower($2)', limit, offset);
  return { items: rows.map(toEnvironment), total };
}

export interface NewEnvironment {
  organizationId: string; projectId: string; clusterId: string; name: string; mode: string; autoPreview: boolean;
  expiresAt: string | null; clonedFromId: string | null;
}

const INSERT_ENVIRONMENT = new AuditedInsert(8, returningInsert(
  `insert into environments (organization_id, project_id, cluster_id, name, mode, auto_preview, expires_at, cloned_from_id)
   values ($1, $2, $3, $4, $5, $6, $7, $8) returning id, project_id, name`));

/** the new environment's id; with the request's creation event, written by the same statement */
export async function insertEnvironment(db: Queryable, v: NewEnvironment, creation?: CreationEvent): Promise<string> {
  const rows = await INSERT_ENVIRONMENT.query<{ id: string }>(db,
    [v.organizationId, v.projectId, v.clusterId, v.name, v.mode, v.autoPreview, v.expiresAt, v.clonedFromId], creation);
  return rows[0]!.id;
}

/** members sent change; omitted members keep their value */
export async function updateEnvironment(db: Queryable, id: string, v: { name?: string | undefined; mode?: string | undefined; auto_preview?: boolean | undefined }): Promise<boolean> {
  const rows = await db.query(
    `update environments set name = coalesce($2, name), mode = coalesce($3, mode), auto_preview = coalesce($4, auto_preview), updated_at = now()
      where id = $1 returning id`, [id, v.name ?? null, v.mode ?? null, v.auto_preview ?? null]);
  return rows.length > 0;
}

export async function deleteEnvironment(db: Queryable, id: string): Promise<boolean> {
  return (await db.query('delete from environments where id = $1 returning id', [id])).length > 0;
}

export async function expiredEnvironments(db: Queryable, limit: number): Promise<Array<{ id: string; organization_id: string }>> {
  return db.query('select id, organization_id from environments where expires_at < now() order by expires_at limit $1', [limit]);
}

/** environments about to be deleted: actions on their services are refused from now on */
export async function markDeleting(tx: Queryable, environmentIds: string[]): Promise<void> {
  await tx.query('update environments set deleting = true, updated_at = now() where id = any($1::uuid[])', [environmentIds]);
}

export async function lockEnvironment(db: Queryable, id: string): Promise<{ deleting: boolean } | null> {
  const rows = await db.query<{ deleting: boolean }>('select deleting from environments where id = $1 for update', [id]);
  return rows[0] ?? null;
}

export async function servicesToClone(db: Queryable, environmentId: string): Promise<Array<{ id: string; secrets: unknown }>> {
  return db.query<{ id: string; secrets: unknown }>('select id, secrets from services where environment_id = $1 order by created_at, id', [environmentId]);
}


// ---- writes other modules ask for, through the environments service (this module owns the table)

/** pushes a preview copy's expiry back (each event of its pull request) */
export async function setExpiry(tx: Queryable, environmentId: string, expiresAt: string): Promise<void> {
  await tx.query(`update environments set expires_at = $2 where id = $1 and mode = 'PREVIEW'`, [environmentId, expiresAt]);
}

/** deletes a preview copy (never an environment of another mode) */
export async function deletePreviewEnvironment(tx: Queryable, environmentId: string): Promise<boolean> {
  return (await tx.query(`delete from environments where id = $1 and mode = 'PREVIEW' returning id`, [environmentId])).length > 0;
}

/** deletes a throwaway copy made for a workflow run (never an environment a person made) */
export async function deleteRunCopy(db: Queryable, environmentId: string): Promise<boolean> {
  const rows = await db.query<{ id: string }>(
    'delete from environments where id = $1 and cloned_from_id is not null and expires_at is not null returning id', [environmentId]);
  return rows.length > 0;
}

/** an environment's `auto_preview` (set with its deployment rule) */
export async function setAutoPreview(db: Queryable, environmentId: string, autoPreview: boolean): Promise<void> {
  await db.query('update environments set auto_preview = $2, updated_at = now() where id = $1', [environmentId, autoPreview]);
}
