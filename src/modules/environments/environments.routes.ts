// HTTP routes of environments.
import type { AppContext } from '../../context.ts';
import type { App } from '../../http/app-type.ts';
import { pageRequest } from '../../http/pagination.ts';
import { NoContent, NamedPageQuery, idParams } from '../../http/schemas.ts';
import { CloneEnvironmentRequest, CreateEnvironmentRequest, EditEnvironmentRequest, Environment, EnvironmentList } from './environments.schemas.ts';

const tags = ['Environments'];
const EnvParams = idParams('environmentId');

export function environmentRoutes(app: App, ctx: AppContext): void {
  const svc = ctx.services.environments;

  app.get('/project/:projectId/environment', {
    schema: { tags, operationId: 'listEnvironment', params: idParams('projectId'), querystring: NamedPageQuery, response: { 200: EnvironmentList } },
  }, async (req) => svc.list(req.principal, req.params.projectId, pageRequest(req.query, 'configuration')));

  app.post('/project/:projectId/environment', {
    schema: { tags, operationId: 'createEnvironment', summary: 'Create an environment (ADMIN); cluster_id (or cluster) defaults to the matching deployment rule\'s, then the organization\'s default cluster', params: idParams('projectId'), body: CreateEnvironmentRequest, response: { 201: Environment } },
  }, async (req, reply) => reply.code(201).send(await svc.create(req.principal, req.params.projectId, req.body, req.auditCreation)));

  app.get('/environment/:environmentId', {
    schema: { tags, operationId: 'getEnvironment', params: EnvParams, response: { 200: Environment } },
  }, async (req) => svc.get(req.principal, req.params.environmentId));

  app.put('/environment/:environmentId', {
    schema: { tags, operationId: 'editEnvironment', summary: 'Edit an environment (members omitted keep their value)', params: EnvParams, body: EditEnvironmentRequest, response: { 200: Environment } },
  }, async (req) => svc.update(req.principal, req.params.environmentId, req.body));

  app.delete('/environment/:environmentId', {
    schema: { tags, operationId: 'deleteEnvironment', summary: 'Delete an environment with its services, variables and rules', params: EnvParams, response: NoContent },
  }, async (req, reply) => {
    await svc.remove(req.principal, req.params.environmentId);
    return reply.code(204).send(null);
  });

  app.post('/environment/:environmentId/clone', {
    schema: { tags, operationId: 'cloneEnvironment', summary: 'Copy an environment and every service of it (secrets re-sealed, state reset; nothing deployed)', params: EnvParams, body: CloneEnvironmentRequest, response: { 202: Environment } },
  }, async (req, reply) => reply.code(202).send(await svc.clone(req.principal, req.params.environmentId, req.body)));
}
