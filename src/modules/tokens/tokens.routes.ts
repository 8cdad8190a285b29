// HTTP routes of organization API tokens.
import type { AppContext } from '../../context.ts';
import type { App } from '../../http/app-type.ts';
import { pageRequest } from '../../http/pagination.ts';
import { NoContent, idParams } from '../../http/schemas.ts';
import { ApiTokenCreated, ApiTokenCreateRequest, ApiTokenList, ApiTokenQuery } from './tokens.schemas.ts';

const tags = ['API tokens'];

export function tokenRoutes(app: App, ctx: AppContext): void {
  const svc = ctx.services.tokens;

  app.get('/organization/:organizationId/apiToken', {
    schema: { tags, operationId: 'listOrganizationApiTokens', params: idParams('organizationId'), querystring: ApiTokenQuery, response: { 200: ApiTokenList } },
  }, async (req) => svc.list(req.principal, req.params.organizationId, pageRequest(req.query, 'configuration'), req.query.name));

  app.post('/organization/:organizationId/apiToken', {
    schema: { tags, operationId: 'createOrganizationApiToken', summary: 'Create an API token (its secret is shown once)', params: idParams('organizationId'), body: ApiTokenCreateRequest, response: { 201: ApiTokenCreated } },
  }, async (req, reply) => reply.code(201).send(await svc.create(req.principal, req.params.organizationId, req.body)));

  app.delete('/organization/:organizationId/apiToken/:apiTokenId', {
    schema: { tags, operationId: 'deleteOrganizationApiToken', params: idParams('organizationId', 'apiTokenId'), response: NoContent },
  }, async (req, reply) => {
    await svc.remove(req.principal, req.params.organizationId, req.params.apiTokenId);
    return reply.code(204).send(null);
  });
}
