// SQL for the organizations table.
import type { Queryable } from '../../db/db.ts';
import { selectPage } from '../../db/page.ts';
import type { ConstraintMessages } from '../../db/errors.ts';
import { iso, isoRequired } from '../../lib/text.ts';
import type { Organization, OrganizationRequest } from './organizations.schemas.ts';

/** the user-facing messages of this module's constraints (composed in src/modules/constraints.ts) */
export const ORGANIZATION_CONSTRAINTS: ConstraintMessages = {
  organizations_name_key: { status: 409, message: 'Organization name is already taken' },
};

interface OrganizationRow {
  id: string; name: string; description: string | null; plan: string; website_url: string | null;
  repository: string | null; logo_url: string | null; icon_url: string | null; admin_emails: string[];
  owner_user_id: string | null; created_at: Date; updated_at: Date | null;
}

const COLUMNS = 'id, name, description, plan, website_url, repository, logo_url, icon_url, admin_emails, owner_user_id, created_at, updated_at';
const FIND_ORGANIZATION = `select ${COLUMNS} from organizations where id = $1`;

function toOrganization(r: OrganizationRow): Organization {
  return {
    id: r.id, created_at: isoRequired(r.created_at), updated_at: iso(r.updated_at), name: r.name,
    description: r.description, plan: r.plan, website_url: r.website_url, repository: r.repository,
    logo_url: r.logo_url, icon_url: r.icon_url, admin_emails: r.admin_emails ?? [], owner: r.owner_user_id,
  };
}

export async function findOrganization(db: Queryable, id: string): Promise<Organization | null> {
  const rows = await db.query<OrganizationRow>(FIND_ORGANIZATION, [id]);
  return rows[0] ? toOrganization(rows[0]) : null;
}

export async function findOrganizationByName(db: Queryable, name: string): Promise<Organization | null> {
  const rows = await db.query<OrganizationRow>(`select ${COLUMNS} from organizations where lower(name) = lower($1)`, [name]);
  return rows[0] ? toOrganization(rows[0]) : null;
}

export async function insertOrganization(db: Queryable, body: OrganizationRequest, ownerUserId: string | null): Promise<Organization> {
  const rows = await db.query<OrganizationRow>(
    `insert into organizations (name, description, plan, website_url, repository, logo_url, icon_url, admin_emails, owner_user_id)
     values ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9) returning ${COLUMNS}`,
    [body.name, body.description ?? null, body.plan ?? 'FREE', body.website_url ?? null, body.repository ?? null,
      body.logo_url ?? null, body.icon_url ?? null, JSON.stringify(body.admin_emails ?? []), ownerUserId],
  );
  return toOrganization(rows[0]!);
}

/** members sent change; members omitted keep their value */
export async function updateOrganization(db: Queryable, id: string, body: OrganizationRequest): Promise<Organization | null> {
  const rows = await db.query<OrganizationRow>(
    `update organizations set name = $2,
       description = case when $3::boolean then $4 else description end,
       plan = coalesce($5, plan),
       website_url = case when $6::boolean then $7 else website_url end,
       repository = case when $8::boolean then $9 else repository end,
       logo_url = case when $10::boolean then $11 else logo_url end,
       icon_url = case when $12::boolean then $13 else icon_url end,
       admin_emails = case when $14::boolean then $15::jsonb else admin_emails end,
       updated_at = now()
     where id = $1 returning ${COLUMNS}`,
    [id, body.name, 'description' in body, body.description ?? null, body.plan ?? null,
      'website_url' in body, body.website_url ?? null, 'repository' in body, body.repository ?? null,
      'logo_url' in body, body.logo_url ?? null, 'icon_url' in body, body.icon_url ?? null,
      'admin_emails' in body, JSON.stringify(body.admin_emails ?? [])],
  );
  return rows[0] ? toOrganization(rows[0]) : null;
}

export async function deleteOrganization(db: Queryable, id: string): Promise<boolean> {
  return (await db.query('delete from organizations where id = $1 returning id', [id])).length > 0;
}

export async function listOrganizationsOfUser(db: Queryable, userId: string, limit: number | null, offset: number): Promise<{ items: Organization[]; total: number }> {
  const { rows, total } = await selectPage<OrganizationRow>(db,
    `select ${COLUMNS.split(', ').map((c) => 'o.' + c).join(', ')}
       from organizations o join memberships m on m.organization_id = o.id
      where m.user_id = $1 order by o.created_at, o.id limit $2 offset $3`, [userId],
    'select count(*)::int as n from memberships where user_id = $1', limit, offset);
  return { items: rows.map(toOrganization), total };
}

export async function setOwner(db: Queryable, id: string, userId: string): Promise<void> {
  await db.query('update organizations set owner_user_id = $2, updated_at = now() where id = $1', [id, userId]);
}
