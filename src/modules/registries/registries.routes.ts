// HTTP routes of container registries.
import type { AppContext } from '../../context.ts';
import type { App } from '../../http/app-type.ts';
import { pageRequest } from '../../http/pagination.ts';
import { NoContent, NamedPageQuery, idParams } from '../../http/schemas.ts';
import { ContainerRegistry, ContainerRegistryList, ContainerRegistryRequest } from './registries.schemas.ts';

const tags = ['Container registries'];
const OrgParams = idParams('organizationId');
const RegistryParams = idParams('organizationId', 'containerRegistryId');

export function registryRoutes(app: App, ctx: AppContext): void {
  const svc = ctx.services.registries;

  app.get('/organization/:organizationId/containerRegistry', {
    schema: { tags, operationId: 'listContainerRegistry', params: OrgParams, querystring: NamedPageQuery, response: { 200: ContainerRegistryList } },
  }, async (req) => svc.list(req.principal, req.params.organizationId, pageRequest(req.query, 'configuration')));

  app.post('/organization/:organizationId/containerRegistry', {
    schema: { tags, operationId: 'createContainerRegistry', summary: 'Create a container registry (credentials are write-only)', params: OrgParams, body: ContainerRegistryRequest, response: { 201: ContainerRegistry } },
  }, async (req, reply) => reply.code(201).send(await svc.create(req.principal, req.params.organizationId, req.body)));

  app.get('/organization/:organizationId/containerRegistry/:containerRegistryId', {
    schema: { tags, operationId: 'getContainerRegistry', params: RegistryParams, response: { 200: ContainerRegistry } },
  }, async (req) => svc.get(req.principal, req.params.organizationId, req.params.containerRegistryId));

  app.put('/organization/:organizationId/containerRegistry/:containerRegistryId', {
    schema: { tags, operationId: 'editContainerRegistry', summary: 'Edit a container registry (config members sent are merged into the stored ones)', params: RegistryParams, body: ContainerRegistryRequest, response: { 200: ContainerRegistry } },
  }, async (req) => svc.update(req.principal, req.params.organizationId, req.params.containerRegistryId, req.body));

  app.delete('/organization/:organizationId/containerRegistry/:containerRegistryId', {
    schema: { tags, operationId: 'deleteContainerRegistry', summary: 'Delete a container registry no service uses (409 otherwise)', params: RegistryParams, response: NoContent },
  }, async (req, reply) => {
    await svc.remove(req.principal, req.params.organizationId, req.params.containerRegistryId);
    return reply.code(204).send(null);
  });
}
