// Members and invitations. ADMINs invite by email with a role no higher than their own; the
// invited user, signed in with a JWT carrying that email, accepts and becomes a member. There
// is one OWNER: its role changes only through transferOwnership, and it cannot be removed.
// Any caller may ask its own role in an organization it belongs to (decision 0605).
import type { Db, Queryable } from '../../db/db.ts';
import { badRequest, conflict, forbidden, notFound } from '../../lib/errors.ts';
import { page, type PageRequest } from '../../http/pagination.ts';
import type { AccessService } from '../access/access.service.ts';
import { displayName, type Principal } from '../access/principal.ts';
import { ROLE_IDS, ROLE_NAMES, canGrant, resolveRole, roleAllows, type Role } from '../access/roles.ts';
import type { OrganizationsService } from '../organizations/organizations.service.ts';
import * as repo from './members.repo.ts';
import type { CurrentRole, InviteMember, InviteMemberRequest, Member } from './members.schemas.ts';

const INVITATION_TTL_DAYS = 7;

type Paged<T> = ReturnType<typeof page<T>>;

export interface MembersService {
  list(p: Principal, orgId: string, req: PageRequest): Promise<Paged<Member>>;
  /** the caller's own role and what it allows: 404 unknown organization, 403 not a member (or another organization's token) */
  currentRole(p: Principal, orgId: string): Promise<CurrentRole>;
  changeRole(p: Principal, orgId: string, body: { user_id: string; role?: string; role_id?: string }): Promise<Member>;
  remove(p: Principal, orgId: string, userId: string): Promise<void>;
  invite(p: Principal, orgId: string, body: InviteMemberRequest): Promise<InviteMember>;
  listInvites(p: Principal, orgId: string, req: PageRequest): Promise<Paged<InviteMember>>;
  getInvite(p: Principal, orgId: string, inviteId: string): Promise<InviteMember>;
  acceptInvite(p: Principal, orgId: string, inviteId: string): Promise<InviteMember>;
  deleteInvite(p: Principal, orgId: string, inviteId: string): Promise<void>;
  // for access and organizations (memberships is this module's table), no caller to authorize:
  /** a user's role in an organization, or null */
  roleIn(orgId: string, userId: string): Promise<Role | null>;
  /** a user's roles in every organization it belongs to */
  rolesOf(userId: string): Promise<Role[]>;
  /** the creator of a new organization becomes its OWNER */
  addOwner(tx: Queryable, orgId: string, userId: string): Promise<void>;
  /** the member becomes OWNER and the OWNER ADMIN; false (nothing changed) when the user is no member */
  makeOwner(tx: Queryable, orgId: string, userId: string): Promise<boolean>;
}

export function createMembersService(deps: { db: Db; access: AccessService; organizations: OrganizationsService; publicUrl: string }): MembersService {
  const { db, access, organizations, publicUrl } = deps;

  function requestedRole(body: { role?: string | null; role_id?: string | null }): Role {
    if (!body.role && !body.role_id) throw badRequest('role or role_id is required');
    const role = resolveRole(body);
    if (!role) throw badRequest(body.role_id ? 'role_id is not a known role' : 'role must be one of OWNER, ADMIN, DEVOPS, VIEWER');
    return role;
  }

  function inviteeMatches(p: Principal, email: string): boolean {
    return p.kind === 'user' && p.emailVerified && p.email !== null && p.email.toLowerCase() === email.toLowerCase();
  }

  return {
    roleIn: (orgId, userId) => repo.memberRole(db, orgId, userId),
    rolesOf: (userId) => repo.memberRoles(db, userId),
    addOwner: (tx, orgId, userId) => repo.addMember(tx, orgId, userId, 'OWNER'),
    async makeOwner(tx, orgId, userId) {
      if (!(await repo.memberRole(tx, orgId, userId, true))) return false;
      await repo.transferOwnerRole(tx, orgId, userId);
      return true;
    },
    async list(p, orgId, req) {
      await organizations.authorize(p, orgId, 'read');
      const { items, total } = await repo.listMembers(db, orgId, req.limit, req.offset);
      return page(req, items, total);
    },
    async currentRole(p, orgId) {
      const role = await organizations.authorize(p, orgId, 'read');
      return {
        organization_id: orgId, role, role_name: ROLE_NAMES[role], role_id: ROLE_IDS[role],
        principal: p.kind === 'token'
          ? { kind: 'TOKEN', id: p.id, name: p.name }
          : { kind: 'USER', id: p.id, name: p.name ?? p.email ?? p.sub },
        permissions: {
          read: roleAllows(role, 'read'), write: roleAllows(role, 'write'),
          manage: roleAllows(role, 'manage'), own: roleAllows(role, 'own'),
        },
      };
    },
    async changeRole(p, orgId, body) {
      const myRole = await organizations.authorize(p, orgId, 'manage');
      const role = requestedRole(body);
      if (role === 'OWNER') throw badRequest('There is one OWNER; use transferOwnership to change it');
      if (!canGrant(myRole, role)) throw forbidden(`Your role ${myRole} cannot grant ${role}`);
      const member = await repo.findMember(db, orgId, body.user_id);
      if (!member) throw notFound('Member');
      if (member.role === 'OWNER') throw conflict("The OWNER's role changes only through transferOwnership");
      await repo.setMemberRole(db, orgId, body.user_id, role);
      access.forget(body.user_id, orgId);
      return (await repo.findMember(db, orgId, body.user_id))!;
    },
    async remove(p, orgId, userId) {
      const leavingMyself = p.kind === 'user' && p.id === userId;
      await organizations.authorize(p, orgId, leavingMyself ? 'read' : 'manage');
      const member = await repo.findMember(db, orgId, userId);
      if (!member) throw notFound('Member');
      if (member.role === 'OWNER') throw conflict('The OWNER cannot be removed; transfer ownership first');
      await repo.deleteMember(db, orgId, userId);
      access.forget(userId, orgId);
    },
    async invite(p, orgId, body) {
      const myRole = await organizations.authorize(p, orgId, 'manage');
      const role = requestedRole(body);
      if (role === 'OWNER') throw badRequest('Invitations cannot grant OWNER; use transferOwnership after the user joins');
      if (!canGrant(myRole, role)) throw forbidden(`Your role ${myRole} cannot grant ${role}`);
      if (await repo.isMemberByEmail(db, orgId, body.email)) throw conflict('User is already a member of this organization');
      const id = await db.transaction((tx) =>
        repo.insertInvite(tx, orgId, body.email, role, { id: p.kind === 'user' ? p.id : null, name: displayName(p) }, INVITATION_TTL_DAYS));
      return repo.toInvite((await repo.findInvite(db, orgId, id))!, publicUrl);
    },
    async listInvites(p, orgId, req) {
      await organizations.authorize(p, orgId, 'manage');
      const { items, total } = await repo.listInvites(db, orgId, req.limit, req.offset);
      return page(req, items.map((r) => repo.toInvite(r, publicUrl)), total);
    },
    async getInvite(p, orgId, inviteId) {
      const invite = await repo.findInvite(db, orgId, inviteId);
      if (!invite) {
        await organizations.authorize(p, orgId, 'read');
        throw notFound('Invitation');
      }
      if (!inviteeMatches(p, invite.email)) await organizations.authorize(p, orgId, 'manage');
      return repo.toInvite(invite, publicUrl);
    },
    async acceptInvite(p, orgId, inviteId) {
      const invite = await repo.findInvite(db, orgId, inviteId);
      if (!invite) throw notFound('Invitation');
      if (!inviteeMatches(p, invite.email)) {
        throw forbidden('Only the invited user, signed in with a verified email matching the invitation, can accept it');
      }
      if (invite.status === 'ACCEPTED') throw conflict('This invitation was already accepted');
      await db.transaction(async (tx) => {
        if (!(await repo.markInviteAccepted(tx, inviteId))) throw conflict('This invitation has expired; ask for a new one');
        await repo.addMember(tx, orgId, p.id, invite.role);
      });
      access.forget(p.id, orgId);
      return repo.toInvite((await repo.findInvite(db, orgId, inviteId))!, publicUrl);
    },
    async deleteInvite(p, orgId, inviteId) {
      await organizations.authorize(p, orgId, 'manage');
      if (!(await repo.deleteInvite(db, orgId, inviteId))) throw notFound('Invitation');
    },
  };
}
