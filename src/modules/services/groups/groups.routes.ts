// HTTP routes of organization annotations and labels groups.
import type { TSchema } from 'typebox';
import type { AppContext } from '../../../context.ts';
import type { App } from '../../../http/app.ts';
import { pageRequest } from '../../../http/pagination.ts';
import { NoContent, PageQuery, idParams } from '../../../http/schemas.ts';
import type { GroupKind } from './groups.repo.ts';
import {
  AnnotationsGroup, AnnotationsGroupList, AnnotationsGroupRequest, LabelsGroup, LabelsGroupList, LabelsGroupRequest,
} from './groups.schemas.ts';

const KINDS: Array<{ kind: GroupKind; path: string; op: string; body: TSchema; item: TSchema; list: TSchema }> = [
  { kind: 'annotations', path: 'annotationsGroup', op: 'AnnotationsGroup', body: AnnotationsGroupRequest, item: AnnotationsGroup, list: AnnotationsGroupList },
  { kind: 'labels', path: 'labelsGroup', op: 'LabelsGroup', body: LabelsGroupRequest, item: LabelsGroup, list: LabelsGroupList },
];

export function groupRoutes(app: App, ctx: AppContext): void {
  const svc = ctx.services.serviceGroups;
  const tags = ['Organization Annotations and Labels Groups'];
  for (const k of KINDS) {
    const idName = `${k.path}Id`;
    const OrgParams = idParams('organizationId');
    const Params = idParams('organizationId', idName);
    const ids = (req: { params: unknown }) => req.params as Record<string, string>;
    app.get(`/organization/:organizationId/${k.path}`, {
      schema: { tags, operationId: `listOrganization${k.op}`, params: OrgParams, querystring: PageQuery, response: { 200: k.list } },
    }, async (req) => svc.list(req.principal, req.params.organizationId, k.kind, pageRequest(req.query, 'configuration')));
    app.post(`/organization/:organizationId/${k.path}`, {
      schema: { tags, operationId: `createOrganization${k.op}`, params: OrgParams, body: k.body, response: { 201: k.item } },
    }, async (req, reply) => reply.code(201).send(await svc.create(req.principal, req.params.organizationId, k.kind, req.body as never)));
    app.get(`/organization/:organizationId/${k.path}/:${idName}`, {
      schema: { tags, operationId: `getOrganization${k.op}`, params: Params, response: { 200: k.item } },
    }, async (req) => svc.get(req.principal, ids(req).organizationId!, k.kind, ids(req)[idName]!));
    app.put(`/organization/:organizationId/${k.path}/:${idName}`, {
      schema: { tags, operationId: `editOrganization${k.op}`, summary: 'Replace the group (name and entries)', params: Params, body: k.body, response: { 200: k.item } },
    }, async (req) => svc.edit(req.principal, ids(req).organizationId!, k.kind, ids(req)[idName]!, req.body as never));
    app.delete(`/organization/:organizationId/${k.path}/:${idName}`, {
      schema: { tags, operationId: `deleteOrganization${k.op}`, params: Params, response: NoContent },
    }, async (req, reply) => {
      await svc.remove(req.principal, ids(req).organizationId!, k.kind, ids(req)[idName]!);
      return reply.code(204).send(null);
    });
  }
}
