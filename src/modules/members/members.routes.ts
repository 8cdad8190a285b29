// HTTP routes of members, roles and invitations.
import type { AppContext } from '../../context.ts';
import type { App } from '../../http/app-type.ts';
import { pageRequest } from '../../http/pagination.ts';
import { NoContent, PageQuery, idParams } from '../../http/schemas.ts';
import { ROLE_IDS, ROLE_NAMES, ROLES } from '../access/roles.ts';
import {
  AvailableRoleList, CurrentRole, InviteMember, InviteMemberList, InviteMemberRequest, Member, MemberDeleteRequest, MemberList,
  MemberRoleUpdateRequest,
} from './members.schemas.ts';

const tags = ['Members'];
const OrgParams = idParams('organizationId');
const InviteParams = idParams('organizationId', 'inviteId');

export function memberRoutes(app: App, ctx: AppContext): void {
  const svc = ctx.services.members;

  app.get('/organization/:organizationId/availableRole', {
    schema: { tags, operationId: 'listOrganizationAvailableRoles', params: OrgParams, response: { 200: AvailableRoleList } },
  }, async (req) => {
    await ctx.services.organizations.authorize(req.principal, req.params.organizationId, 'read');
    return { results: [...ROLES].reverse().map((r) => ({ id: ROLE_IDS[r], name: ROLE_NAMES[r] })) };
  });

  app.get('/organization/:organizationId/currentRole', {
    schema: {
      tags, operationId: 'getOrganizationCurrentRole', summary: "The caller's own role in the organization and what it allows",
      description: 'berth only (decision 0605): the role of the API token or signed-in user making the request, for any role; the same `role`, `role_name` and `role_id` as its member row. 403 for another organization\'s token or a non-member.',
      params: OrgParams, response: { 200: CurrentRole },
    },
  }, async (req) => svc.currentRole(req.principal, req.params.organizationId));

  app.get('/organization/:organizationId/member', {
    schema: { tags, operationId: 'getOrganizationMembers', params: OrgParams, querystring: PageQuery, response: { 200: MemberList } },
  }, async (req) => svc.list(req.principal, req.params.organizationId, pageRequest(req.query, 'configuration')));

  app.put('/organization/:organizationId/member', {
    schema: { tags, operationId: 'editOrganizationMemberRole', params: OrgParams, body: MemberRoleUpdateRequest, response: { 200: Member } },
  }, async (req) => svc.changeRole(req.principal, req.params.organizationId, req.body));

  app.delete('/organization/:organizationId/member', {
    schema: { tags, operationId: 'deleteMember', params: OrgParams, body: MemberDeleteRequest, response: NoContent },
  }, async (req, reply) => {
    await svc.remove(req.principal, req.params.organizationId, req.body.user_id);
    return reply.code(204).send(null);
  });

  app.get('/organization/:organizationId/inviteMember', {
    schema: { tags, operationId: 'getOrganizationInvitedMembers', params: OrgParams, querystring: PageQuery, response: { 200: InviteMemberList } },
  }, async (req) => svc.listInvites(req.principal, req.params.organizationId, pageRequest(req.query, 'configuration')));

  app.post('/organization/:organizationId/inviteMember', {
    schema: { tags, operationId: 'postInviteMember', params: OrgParams, body: InviteMemberRequest, response: { 201: InviteMember } },
  }, async (req, reply) => reply.code(201).send(await svc.invite(req.principal, req.params.organizationId, req.body)));

  app.get('/organization/:organizationId/inviteMember/:inviteId', {
    schema: { tags, operationId: 'getMemberInvitation', params: InviteParams, response: { 200: InviteMember } },
  }, async (req) => svc.getInvite(req.principal, req.params.organizationId, req.params.inviteId));

  app.post('/organization/:organizationId/inviteMember/:inviteId', {
    schema: { tags, operationId: 'postAcceptInviteMember', summary: 'Accept an invitation (the invited user)', params: InviteParams, response: { 201: InviteMember } },
  }, async (req, reply) => reply.code(201).send(await svc.acceptInvite(req.principal, req.params.organizationId, req.params.inviteId)));

  app.delete('/organization/:organizationId/inviteMember/:inviteId', {
    schema: { tags, operationId: 'deleteInviteMember', params: InviteParams, response: NoContent },
  }, async (req, reply) => {
    await svc.deleteInvite(req.principal, req.params.organizationId, req.params.inviteId);
    return reply.code(204).send(null);
  });
}
