// HTTP routes of organization annotations and labels groups: the same five routes for each kind,
// written with their public paths and operationIds; groupRoutesOf gives each its schema and handler.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import type { AppContext } from '../../../context.ts';
import type { App } from '../../../http/app-type.ts';
import { pageRequest } from '../../../http/pagination.ts';
import { NoContent, PageQuery, idParams } from '../../../http/schemas.ts';
import type { GroupKind } from './groups.repo.ts';
import {
  AnnotationsGroup, AnnotationsGroupList, AnnotationsGroupRequest, LabelsGroup, LabelsGroupList, LabelsGroupRequest,
} from './groups.schemas.ts';

interface Kind { kind: GroupKind; param: string; body: TSchema; item: TSchema; list: TSchema }

const ANNOTATIONS: Kind = { kind: 'annotations', param: 'annotationsGroupId', body: AnnotationsGroupRequest, item: AnnotationsGroup, list: AnnotationsGroupList };
const LABELS: Kind = { kind: 'labels', param: 'labelsGroupId', body: LabelsGroupRequest, item: LabelsGroup, list: LabelsGroupList };

/** the route options (schema and handler) of list, create, get, edit and remove for one kind of group */
function groupRoutesOf(ctx: AppContext, k: Kind) {
  const svc = ctx.services.serviceGroups;
  const tags = ['Organization Annotations and Labels Groups'];
  const OrgParams = idParams('organizationId');
  const Params = idParams('organizationId', k.param);
  const ids = (req: FastifyRequest) => req.params as Record<string, string>;
  return {
    /** GET /organization/{organizationId}/<kind>Group */
    list: (operationId: string) => ({
      schema: { tags, operationId, params: OrgParams, querystring: PageQuery, response: { 200: k.list } },
      handler: async (req: FastifyRequest) => svc.list(req.principal, ids(req).organizationId!, k.kind, pageRequest(req.query as { page?: number; page_size?: number }, 'configuration')),
    }),
    /** POST /organization/{organizationId}/<kind>Group: 201 */
    create: (operationId: string) => ({
      schema: { tags, operationId, params: OrgParams, body: k.body, response: { 201: k.item } },
      handler: async (req: FastifyRequest, reply: FastifyReply) => reply.code(201).send(await svc.create(req.principal, ids(req).organizationId!, k.kind, req.body as never)),
    }),
    /** GET /organization/{organizationId}/<kind>Group/{id} */
    get: (operationId: string) => ({
      schema: { tags, operationId, params: Params, response: { 200: k.item } },
      handler: async (req: FastifyRequest) => svc.get(req.principal, ids(req).organizationId!, k.kind, ids(req)[k.param]!),
    }),
    /** PUT /organization/{organizationId}/<kind>Group/{id} */
    edit: (operationId: string) => ({
      schema: { tags, operationId, summary: 'Replace the group (name and entries)', params: Params, body: k.body, response: { 200: k.item } },
      handler: async (req: FastifyRequest) => svc.edit(req.principal, ids(req).organizationId!, k.kind, ids(req)[k.param]!, req.body as never),
    }),
    /** DELETE /organization/{organizationId}/<kind>Group/{id}: 204 */
    remove: (operationId: string) => ({
      schema: { tags, operationId, params: Params, response: NoContent },
      handler: async (req: FastifyRequest, reply: FastifyReply) => {
        await svc.remove(req.principal, ids(req).organizationId!, k.kind, ids(req)[k.param]!);
        return reply.code(204).send(null);
      },
    }),
  };
}

export function groupRoutes(app: App, ctx: AppContext): void {
  const annotations = groupRoutesOf(ctx, ANNOTATIONS);
  app.get('/organization/:organizationId/annotationsGroup', annotations.list('listOrganizationAnnotationsGroup'));
  app.post('/organization/:organizationId/annotationsGroup', annotations.create('createOrganizationAnnotationsGroup'));
  app.get('/organization/:organizationId/annotationsGroup/:annotationsGroupId', annotations.get('getOrganizationAnnotationsGroup'));
  app.put('/organization/:organizationId/annotationsGroup/:annotationsGroupId', annotations.edit('editOrganizationAnnotationsGroup'));
  app.delete('/organization/:organizationId/annotationsGroup/:annotationsGroupId', annotations.remove('deleteOrganizationAnnotationsGroup'));

  const labels = groupRoutesOf(ctx, LABELS);
  app.get('/organization/:organizationId/labelsGroup', labels.list('listOrganizationLabelsGroup'));
  app.post('/organization/:organizationId/labelsGroup', labels.create('createOrganizationLabelsGroup'));
  app.get('/organization/:organizationId/labelsGroup/:labelsGroupId', labels.get('getOrganizationLabelsGroup'));
  app.put('/organization/:organizationId/labelsGroup/:labelsGroupId', labels.edit('editOrganizationLabelsGroup'));
  app.delete('/organization/:organizationId/labelsGroup/:labelsGroupId', labels.remove('deleteOrganizationLabelsGroup'));
}
