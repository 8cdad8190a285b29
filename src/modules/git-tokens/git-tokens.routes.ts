// HTTP routes of git tokens, at the public API's paths and operationIds.
import type { AppContext } from '../../context.ts';
import type { App } from '../../http/app-type.ts';
import { pageRequest } from '../../http/pagination.ts';
import { NamedPageQuery, NoContent, PageQuery, idParams } from '../../http/schemas.ts';
import { GitToken, GitTokenAssociatedServiceList, GitTokenEditRequest, GitTokenList, GitTokenRequest } from './git-tokens.schemas.ts';

const tags = ['Git tokens'];
const OrgParams = idParams('organizationId');
const TokenParams = idParams('organizationId', 'gitTokenId');

export function gitTokenRoutes(app: App, ctx: AppContext): void {
  const svc = ctx.services.gitTokens;

  app.get('/organization/:organizationId/gitToken', {
    schema: { tags, operationId: 'listOrganizationGitTokens', summary: 'List the git tokens of an organization (tokens are never returned)', params: OrgParams, querystring: NamedPageQuery, response: { 200: GitTokenList } },
  }, async (req) => svc.list(req.principal, req.params.organizationId, pageRequest(req.query, 'configuration')));

  app.post('/organization/:organizationId/gitToken', {
    schema: { tags, operationId: 'createGitToken', summary: 'Create a git token (the token is write-only)', params: OrgParams, body: GitTokenRequest, response: { 201: GitToken } },
  }, async (req, reply) => reply.code(201).send(await svc.create(req.principal, req.params.organizationId, req.body)));

  app.get('/organization/:organizationId/gitToken/:gitTokenId', {
    schema: { tags, operationId: 'getOrganizationGitToken', params: TokenParams, response: { 200: GitToken } },
  }, async (req) => svc.get(req.principal, req.params.organizationId, req.params.gitTokenId));

  app.put('/organization/:organizationId/gitToken/:gitTokenId', {
    schema: { tags, operationId: 'editGitToken', summary: 'Edit a git token (without `token`, the stored one is kept)', params: TokenParams, body: GitTokenEditRequest, response: { 200: GitToken } },
  }, async (req) => svc.update(req.principal, req.params.organizationId, req.params.gitTokenId, req.body));

  app.delete('/organization/:organizationId/gitToken/:gitTokenId', {
    schema: { tags, operationId: 'deleteGitToken', summary: 'Delete a git token no service uses (409 naming the services otherwise)', params: TokenParams, response: NoContent },
  }, async (req, reply) => {
    await svc.remove(req.principal, req.params.organizationId, req.params.gitTokenId);
    return reply.code(204).send(null);
  });

  app.get('/organization/:organizationId/gitToken/:gitTokenId/associatedServices', {
    schema: { tags, operationId: 'getGitTokenAssociatedServices', summary: 'The applications, jobs and agentic workflows that clone with this token', params: TokenParams, querystring: PageQuery, response: { 200: GitTokenAssociatedServiceList } },
  }, async (req) => svc.associatedServices(req.principal, req.params.organizationId, req.params.gitTokenId, pageRequest(req.query, 'configuration')));
}
