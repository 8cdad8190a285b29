// SQL for the projects table.
import type { Queryable } from '../../db/db.ts';
import { selectPage, storedCount } from '../../db/page.ts';
import type { ConstraintMessages } from '../../db/errors.ts';
import { iso, isoRequired } from '../../lib/text.ts';
import { AuditedInsert, returningInsert, type CreationEvent } from '../audit/audit.creation.ts';
import type { Project, ProjectRequest } from './projects.schemas.ts';

/** the user-facing messages of this module's constraints (composed in src/modules/constraints.ts) */
export const PROJECT_CONSTRAINTS: ConstraintMessages = {
  projects_org_name_key: { status: 409, message: 'Project name is already taken in this organization' },
};

interface ProjectRow {
  id: string; organization_id: string; name: string; description: string; created_at: Date; updated_at: Date | null; env_count: number;
}

const COLUMNS = `p.id, p.organization_id, p.name, p.description, p.created_at, p.updated_at,
  coalesce((select sum(n) from row_counts c where c.parent_id = p.id and c.kind = 'environments'), 0)::int as env_count`;

// statements are whole constants: built once, not per call (a template per call is a new string
// the driver must flatten and hash to find its prepared statement: issue 15)
const FIND_PROJECT = `select ${COLUMNS} from projects p where p.id = $1`;
const PROJECTS_PAGE = `select ${COLUMNS} from projects p where p.organization_id = $1 order by p.created_at, p.id limit $2 offset $3`;
const PROJECTS_BY_NAME_PAGE = `select ${COLUMNS} from projects p where p.organization_id = $1 and lower(p.name) = lower($2) order by p.created_at, p.id limit $3 offset $4`;
const PROJECTS_TOTAL = storedCount(`kind = 'projects'`);

function toProject(r: ProjectRow): Project {
  return {
    id: r.id, created_at: isoRequired(r.created_at), updated_at: iso(r.updated_at), name: r.name, description: r.description,
    organization: { id: r.organization_id }, associated_environments_count: Number(r.env_count),
  };
}

export async function findProject(db: Queryable, id: string): Promise<Project | null> {
  const rows = await db.query<ProjectRow>(FIND_PROJECT, [id]);
  return rows[0] ? toProject(rows[0]) : null;
}

export async function listProjects(db: Queryable, organizationId: string, limit: number | null, offset: number, name: string | null = null): Promise<{ items: Project[]; total: number }> {
  const { rows, total } = name === null
    ? await selectPage<ProjectRow>(db, PROJECTS_PAGE, [organizationId], PROJECTS_TOTAL, limit, offset)
    : await selectPage<ProjectRow>(db, PROJECTS_BY_NAME_PAGE, [organizationId, name], 'select count(*)::int as n from projects p where p.organization_id = $1 and lower(p.name) = lower($2)', limit, offset);
  return { items: rows.map(toProject), total };
}

/** one statement: the row comes back from `returning` (a new project has no environments) */
const INSERT_PROJECT = new AuditedInsert(3, returningInsert(`insert into projects (organization_id, name, description) values ($1, $2, $3)
  returning id, organization_id, name, description, created_at, updated_at, 0 as env_count`));

/** the new project; with the request's creation event, written by the same statement */
export async function insertProject(db: Queryable, organizationId: string, body: ProjectRequest, creation?: CreationEvent): Promise<Project> {
  const rows = await INSERT_PROJECT.query<ProjectRow>(db, [organizationId, body.name, body.description ?? ''], creation);
  return toProject(rows[0]!);
}

/** members sent change; omitted members keep their value */
export async function updateProject(db: Queryable, id: string, body: ProjectRequest): Promise<Project | null> {
  const rows = await db.query<{ id: string }>(
    `update projects set name = $2, description = case when $3::boolean then $4 else description end, updated_at = now()
      where id = $1 returning id`, [id, body.name, body.description !== undefined, body.description ?? '']);
  return rows[0] ? findProject(db, id) : null;
}

export async function environmentIdsOfProject(db: Queryable, id: string): Promise<string[]> {
  const rows = await db.query<{ id: string }>('select id from environments where project_id = $1 for update', [id]);
  return rows.map((r) => r.id);
}

export async function deleteProject(db: Queryable, id: string): Promise<boolean> {
  return (await db.query('delete from projects where id = $1 returning id', [id])).length > 0;
}
