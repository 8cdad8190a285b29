// SQL for memberships and invitations.
import type { Queryable } from '../../db/db.ts';
import { selectPage } from '../../db/page.ts';
import type { ConstraintMessages } from '../../db/errors.ts';
import { iso, isoRequired } from '../../lib/text.ts';
import { ROLE_IDS, ROLE_NAMES, type Role } from '../access/roles.ts';
import type { InviteMember, Member } from './members.schemas.ts';

/** the user-facing messages of this module's constraints (composed in src/modules/constraints.ts) */
export const MEMBER_CONSTRAINTS: ConstraintMessages = {
  invitations_pending_email_key: { status: 409, message: 'User already invited' },
};

interface MemberRow {
  user_id: string; email: string | null; name: string | null; last_activity_at: Date | null;
  role: Role; created_at: Date; updated_at: Date | null;
}

function toMember(r: MemberRow): Member {
  return {
    id: r.user_id, created_at: isoRequired(r.created_at), updated_at: iso(r.updated_at), email: r.email ?? '',
    name: r.name, nickname: null, profile_picture_url: null, last_activity_at: iso(r.last_activity_at),
    role: r.role, role_name: ROLE_NAMES[r.role], role_id: ROLE_IDS[r.role],
  };
}

const MEMBER_SELECT = `select m.user_id, u.email, u.name, u.last_activity_at, m.role, m.created_at, m.updated_at
  from memberships m join users u on u.id = m.user_id`;

export async function listMembers(db: Queryable, orgId: string, limit: number | null, offset: number): Promise<{ items: Member[]; total: number }> {
  const { rows, total } = await selectPage<MemberRow>(db,
    `${MEMBER_SELECT} where m.organization_id = $1 order by m.created_at, m.user_id limit $2 offset $3`, [orgId],
    'select count(*)::int as n from memberships where organization_id = $1', limit, offset);
  return { items: rows.map(toMember), total };
}

export async function findMember(db: Queryable, orgId: string, userId: string): Promise<Member | null> {
  const rows = await db.query<MemberRow>(`${MEMBER_SELECT} where m.organization_id = $1 and m.user_id = $2`, [orgId, userId]);
  return rows[0] ? toMember(rows[0]) : null;
}

export async function isMemberByEmail(db: Queryable, orgId: string, email: string): Promise<boolean> {
  const rows = await db.query(
    `select 1 from memberships m join users u on u.id = m.user_id where m.organization_id = $1 and lower(u.email) = lower($2)`, [orgId, email]);
  return rows.length > 0;
}

export async function setMemberRole(db: Queryable, orgId: string, userId: string, role: Role): Promise<void> {
  await db.query('update memberships set role = $3, updated_at = now() where organization_id = $1 and user_id = $2', [orgId, userId, role]);
}

export async function deleteMember(db: Queryable, orgId: string, userId: string): Promise<void> {
  await db.query('delete from memberships where organization_id = $1 and user_id = $2', [orgId, userId]);
}

export async function addMember(db: Queryable, orgId: string, userId: string, role: Role): Promise<void> {
  await db.query(
    `insert into memberships (organization_id, user_id, role) values ($1, $2, $3)
     on conflict (organization_id, user_id) do nothing`, [orgId, userId, role]);
}

interface InviteRow {
  id: string; organization_id: string; email: string; role: Role; inviter_name: string; status: 'PENDING' | 'ACCEPTED';
  created_at: Date; updated_at: Date | null; expires_at: Date; organization_name: string; logo_url: string | null;
}

export function toInvite(r: InviteRow, publicUrl: string, now = Date.now()): InviteMember {
  const expired = r.status === 'PENDING' && new Date(r.expires_at).getTime() <= now;
  return {
    id: r.id, created_at: isoRequired(r.created_at), updated_at: iso(r.updated_at), email: r.email, role: r.role,
    role_id: ROLE_IDS[r.role], role_name: ROLE_NAMES[r.role],
    invitation_link: `${publicUrl}/organization/${r.organization_id}/inviteMember/${r.id}`,
    invitation_status: expired ? 'EXPIRED' : r.status, inviter: r.inviter_name, organization_name: r.organization_name,
    logo_url: r.logo_url, expires_at: isoRequired(r.expires_at),
  };
}

const INVITE_SELECT = `select i.id, i.organization_id, i.email, i.role, i.inviter_name, i.status, i.created_at, i.updated_at,
  i.expires_at, o.name as organization_name, o.logo_url from invitations i join organizations o on o.id = i.organization_id`;

export async function insertInvite(db: Queryable, orgId: string, email: string, role: Role, inviter: { id: string | null; name: string }, ttlDays: number): Promise<string> {
  // an expired pending invitation for the same address gives way to the new one
  await db.query(
    `delete from invitations where organization_id = $1 and lower(email) = lower($2) and status = 'PENDING' and expires_at <= now()`,
    [orgId, email]);
  const rows = await db.query<{ id: string }>(
    `insert into invitations (organization_id, email, role, inviter_user_id, inviter_name, expires_at)
     values ($1, $2, $3, $4, $5, now() + make_interval(days => $6::int)) returning id`,
    [orgId, email, role, inviter.id, inviter.name, ttlDays]);
  return rows[0]!.id;
}

export async function findInvite(db: Queryable, orgId: string, inviteId: string): Promise<InviteRow | null> {
  const rows = await db.query<InviteRow>(`${INVITE_SELECT} where i.organization_id = $1 and i.id = $2`, [orgId, inviteId]);
  return rows[0] ?? null;
}

export async function listInvites(db: Queryable, orgId: string, limit: number | null, offset: number): Promise<{ items: InviteRow[]; total: number }> {
  const { rows, total } = await selectPage<InviteRow>(db,
    `${INVITE_SELECT} where i.organization_id = $1 and i.status = 'PENDING' order by i.created_at, i.id limit $2 offset $3`, [orgId],
    `select count(*)::int as n from invitations where organization_id = $1 and status = 'PENDING'`, limit, offset);
  return { items: rows, total };
}

export async function markInviteAccepted(db: Queryable, inviteId: string): Promise<boolean> {
  const rows = await db.query(
    `update invitations set status = 'ACCEPTED', updated_at = now() where id = $1 and status = 'PENDING' and expires_at > now() returning id`, [inviteId]);
  return rows.length > 0;
}

export async function deleteInvite(db: Queryable, orgId: string, inviteId: string): Promise<boolean> {
  return (await db.query('delete from invitations where organization_id = $1 and id = $2 returning id', [orgId, inviteId])).length > 0;
}

/** the user's role in the organization, or null (`forUpdate`: the membership row locked) */
export async function memberRole(db: Queryable, orgId: string, userId: string, forUpdate = false): Promise<Role | null> {
  const rows = await db.query<{ role: Role }>(
    `select role from memberships where organization_id = $1 and user_id = $2${forUpdate ? ' for update' : ''}`, [orgId, userId]);
  return rows[0]?.role ?? null;
}

/** the user's roles in every organization it belongs to */
export async function memberRoles(db: Queryable, userId: string): Promise<Role[]> {
  return (await db.query<{ role: Role }>('select role from memberships where user_id = $1', [userId])).map((r) => r.role);
}

/** the organization's OWNER becomes ADMIN, then this member OWNER */
export async function transferOwnerRole(db: Queryable, orgId: string, userId: string): Promise<void> {
  await db.query(`update memberships set role = 'ADMIN', updated_at = now() where organization_id = $1 and role = 'OWNER'`, [orgId]);
  await db.query(`update memberships set role = 'OWNER', updated_at = now() where organization_id = $1 and user_id = $2`, [orgId, userId]);
}
