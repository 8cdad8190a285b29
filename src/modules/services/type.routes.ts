// The five CRUD routes every service type has, described once: POST/GET
// /environment/{environmentId}/<type>, GET/PUT/DELETE /<type>/{<type>Id}. Each type's routes file
// registers them with their public paths and operationIds; crudRoutes gives each its schema and
// its handler (one call of the shared services service with the type's handler). Thin.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import type { AppContext } from '../../context.ts';
import { pageRequest } from '../../http/pagination.ts';
import { NoContent, NamedPageQuery, idParams } from '../../http/schemas.ts';
import type { ServiceTypeHandler } from './services.service.ts';

export interface TypeRoutes {
  /** the path parameter of the service's id (`applicationId`) */
  param: string;
  tag: string;
  handler: ServiceTypeHandler<any, any, any>;
  create: TSchema;
  edit: TSchema;
  response: TSchema;
  list: TSchema;
}

/** the route options (schema and handler) of list, create, get, edit and remove for one service type */
export function crudRoutes(ctx: AppContext, d: TypeRoutes) {
  const svc = ctx.services.services;
  const tags = [d.tag];
  const EnvParams = idParams('environmentId');
  const IdParams = idParams(d.param);
  const environmentOf = (req: FastifyRequest) => (req.params as { environmentId: string }).environmentId;
  const idOf = (req: FastifyRequest) => (req.params as Record<string, string>)[d.param]!;
  return {
    /** GET /environment/{environmentId}/<type> */
    list: (operationId: string) => ({
      schema: { tags, operationId, params: EnvParams, querystring: NamedPageQuery, response: { 200: d.list } },
      handler: async (req: FastifyRequest) => svc.list(req.principal, environmentOf(req), d.handler, pageRequest(req.query as { page?: number; page_size?: number; name?: string }, 'configuration')),
    }),
    /** POST /environment/{environmentId}/<type>: 201 */
    create: (operationId: string) => ({
      schema: { tags, operationId, params: EnvParams, body: d.create, response: { 201: d.response } },
      handler: async (req: FastifyRequest, reply: FastifyReply) => reply.code(201).send(await svc.create(req.principal, environmentOf(req), d.handler, req.body as { name: string }, req.auditCreation)),
    }),
    /** GET /<type>/{id} */
    get: (operationId: string) => ({
      schema: { tags, operationId, params: IdParams, response: { 200: d.response } },
      handler: async (req: FastifyRequest) => svc.get(req.principal, idOf(req), d.handler),
    }),
    /** PUT /<type>/{id} */
    edit: (operationId: string) => ({
      schema: { tags, operationId, summary: 'Edit (members sent change, omitted members keep their value)', params: IdParams, body: d.edit, response: { 200: d.response } },
      handler: async (req: FastifyRequest) => svc.edit(req.principal, idOf(req), d.handler, req.body as { name?: string }),
    }),
    /** DELETE /<type>/{id}: 204 */
    remove: (operationId: string) => ({
      schema: { tags, operationId, params: IdParams, response: NoContent },
      handler: async (req: FastifyRequest, reply: FastifyReply) => {
        await svc.remove(req.principal, idOf(req), d.handler.type, d.handler.label);
        return reply.code(204).send(null);
      },
    }),
  };
}
