// HTTP routes of LLM providers: organization-scoped list/create, top-level get/edit/delete.
import type { AppContext } from '../../context.ts';
import type { App } from '../../http/app-type.ts';
import { pageRequest } from '../../http/pagination.ts';
import { NoContent, PageQuery, idParams } from '../../http/schemas.ts';
import { LlmProvider, LlmProviderCreateRequest, LlmProviderEditRequest, LlmProviderList } from './llm-providers.schemas.ts';

const tags = ['LLM Providers'];
const OrgParams = idParams('organizationId');
const ProviderParams = idParams('llmProviderId');

export function llmProviderRoutes(app: App, ctx: AppContext): void {
  const svc = ctx.services.llmProviders;

  app.get('/organization/:organizationId/llmProvider', {
    schema: { tags, operationId: 'listOrganizationLlmProviders', summary: 'List the LLM providers the caller may see (shared ones and their own)', params: OrgParams, querystring: PageQuery, response: { 200: LlmProviderList } },
  }, async (req) => svc.list(req.principal, req.params.organizationId, pageRequest(req.query, 'configuration')));

  app.post('/organization/:organizationId/llmProvider', {
    schema: { tags, operationId: 'createLlmProvider', summary: 'Create an LLM provider (ORGANIZATION: ADMIN+; USER: any DEVOPS+ signed-in member)', params: OrgParams, body: LlmProviderCreateRequest, response: { 201: LlmProvider } },
  }, async (req, reply) => reply.code(201).send(await svc.create(req.principal, req.params.organizationId, req.body)));

  app.get('/llmProvider/:llmProviderId', {
    schema: { tags, operationId: 'getLlmProvider', params: ProviderParams, response: { 200: LlmProvider } },
  }, async (req) => svc.get(req.principal, req.params.llmProviderId));

  app.put('/llmProvider/:llmProviderId', {
    schema: { tags, operationId: 'editLlmProvider', summary: 'Edit an LLM provider (members omitted keep their value; the credential too)', params: ProviderParams, body: LlmProviderEditRequest, response: { 200: LlmProvider } },
  }, async (req) => svc.update(req.principal, req.params.llmProviderId, req.body));

  app.delete('/llmProvider/:llmProviderId', {
    schema: { tags, operationId: 'deleteLlmProvider', summary: 'Delete an LLM provider (409 while a workflow uses it)', params: ProviderParams, response: NoContent },
  }, async (req, reply) => {
    await svc.remove(req.principal, req.params.llmProviderId);
    return reply.code(204).send(null);
  });
}
