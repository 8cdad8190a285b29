// HTTP routes of organizations: thin, they validate and call the service.
import type { AppContext } from '../../context.ts';
import type { App } from '../../http/app-type.ts';
import { pageRequest } from '../../http/pagination.ts';
import { NoContent, PageQuery, idParams } from '../../http/schemas.ts';
import { Organization, OrganizationList, OrganizationRequest, TransferOwnershipRequest } from './organizations.schemas.ts';

const tags = ['Organizations'];
const OrgParams = idParams('organizationId');

export function organizationRoutes(app: App, ctx: AppContext): void {
  const svc = ctx.services.organizations;

  app.get('/organization', {
    schema: { tags, operationId: 'listOrganization', summary: "List the caller's organizations", querystring: PageQuery, response: { 200: OrganizationList } },
  }, async (req) => svc.list(req.principal, pageRequest(req.query, 'configuration')));

  app.post('/organization', {
    schema: { tags, operationId: 'createOrganization', summary: 'Create an organization (the caller becomes its OWNER)', body: OrganizationRequest, response: { 201: Organization } },
  }, async (req, reply) => reply.code(201).send(await svc.create(req.principal, req.body)));

  app.get('/organization/:organizationId', {
    schema: { tags, operationId: 'getOrganization', params: OrgParams, response: { 200: Organization } },
  }, async (req) => svc.get(req.principal, req.params.organizationId));

  app.put('/organization/:organizationId', {
    schema: { tags, operationId: 'editOrganization', summary: 'Edit an organization (members omitted keep their value)', params: OrgParams, body: OrganizationRequest, response: { 200: Organization } },
  }, async (req) => svc.update(req.principal, req.params.organizationId, req.body));

  app.delete('/organization/:organizationId', {
    schema: { tags, operationId: 'deleteOrganization', summary: 'Delete an organization and everything in it (OWNER)', params: OrgParams, response: NoContent },
  }, async (req, reply) => {
    await svc.remove(req.principal, req.params.organizationId);
    return reply.code(204).send(null);
  });

  app.post('/organization/:organizationId/transferOwnership', {
    schema: { tags, operationId: 'postOrganizationTransferOwnership', summary: 'Make another member the OWNER (the current owner becomes ADMIN)', params: OrgParams, body: TransferOwnershipRequest, response: NoContent },
  }, async (req, reply) => {
    await svc.transferOwnership(req.principal, req.params.organizationId, req.body.user_id);
    return reply.code(204).send(null);
  });
}
