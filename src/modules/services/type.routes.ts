// The five CRUD routes every service type has, registered from one description:
// POST/GET /environment/{environmentId}/<path>, GET/PUT/DELETE /<path>/{<path>Id}. Thin: schema
// and one call of the shared services service with the type's handler.
import type { TSchema } from 'typebox';
import type { AppContext } from '../../context.ts';
import type { App } from '../../http/app.ts';
import { pageRequest } from '../../http/pagination.ts';
import { NoContent, NamedPageQuery, idParams } from '../../http/schemas.ts';
import type { ServiceTypeHandler } from './services.service.ts';

export interface TypeRoutes {
  path: string;
  tag: string;
  handler: ServiceTypeHandler<any, any, any>;
  create: TSchema;
  edit: TSchema;
  response: TSchema;
  list: TSchema;
  operationIds: { list: string; create: string; get: string; edit: string; remove: string };
}

export function registerTypeRoutes(app: App, ctx: AppContext, d: TypeRoutes): void {
  const svc = ctx.services.services;
  const tags = [d.tag];
  const EnvParams = idParams('environmentId');
  const idName = `${d.path}Id`;
  const IdParams = idParams(idName);
  const idOf = (req: { params: unknown }) => (req.params as Record<string, string>)[idName]!;

  app.get(`/environment/:environmentId/${d.path}`, {
    schema: { tags, operationId: d.operationIds.list, params: EnvParams, querystring: NamedPageQuery, response: { 200: d.list } },
  }, async (req) => svc.list(req.principal, req.params.environmentId, d.handler, pageRequest(req.query, 'configuration')));

  app.post(`/environment/:environmentId/${d.path}`, {
    schema: { tags, operationId: d.operationIds.create, params: EnvParams, body: d.create, response: { 201: d.response } },
  }, async (req, reply) => reply.code(201).send(await svc.create(req.principal, req.params.environmentId, d.handler, req.body as { name: string }, req.auditCreation)));

  app.get(`/${d.path}/:${idName}`, {
    schema: { tags, operationId: d.operationIds.get, params: IdParams, response: { 200: d.response } },
  }, async (req) => svc.get(req.principal, idOf(req), d.handler));

  app.put(`/${d.path}/:${idName}`, {
    schema: { tags, operationId: d.operationIds.edit, summary: 'Edit (members sent change, omitted members keep their value)', params: IdParams, body: d.edit, response: { 200: d.response } },
  }, async (req) => svc.edit(req.principal, idOf(req), d.handler, req.body as { name?: string }));

  app.delete(`/${d.path}/:${idName}`, {
    schema: { tags, operationId: d.operationIds.remove, params: IdParams, response: NoContent },
  }, async (req, reply) => {
    await svc.remove(req.principal, idOf(req), d.handler.type, d.handler.label);
    return reply.code(204).send(null);
  });
}
