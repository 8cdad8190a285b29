// HTTP routes of projects.
import type { AppContext } from '../../context.ts';
import type { App } from '../../http/app-type.ts';
import { pageRequest } from '../../http/pagination.ts';
import { NoContent, NamedPageQuery, idParams } from '../../http/schemas.ts';
import { Project, ProjectList, ProjectRequest } from './projects.schemas.ts';

const tags = ['Projects'];

export function projectRoutes(app: App, ctx: AppContext): void {
  const svc = ctx.services.projects;

  app.get('/organization/:organizationId/project', {
    schema: { tags, operationId: 'listProject', params: idParams('organizationId'), querystring: NamedPageQuery, response: { 200: ProjectList } },
  }, async (req) => svc.list(req.principal, req.params.organizationId, pageRequest(req.query, 'configuration')));

  app.post('/organization/:organizationId/project', {
    schema: { tags, operationId: 'createProject', summary: 'Create a project (ADMIN)', params: idParams('organizationId'), body: ProjectRequest, response: { 201: Project } },
  }, async (req, reply) => reply.code(201).send(await svc.create(req.principal, req.params.organizationId, req.body, req.auditCreation)));

  app.get('/project/:projectId', {
    schema: { tags, operationId: 'getProject', params: idParams('projectId'), response: { 200: Project } },
  }, async (req) => svc.get(req.principal, req.params.projectId));

  app.put('/project/:projectId', {
    schema: { tags, operationId: 'editProject', summary: 'Edit a project (members omitted keep their value)', params: idParams('projectId'), body: ProjectRequest, response: { 200: Project } },
  }, async (req) => svc.update(req.principal, req.params.projectId, req.body));

  app.delete('/project/:projectId', {
    schema: { tags, operationId: 'deleteProject', summary: 'Delete a project with its environments and their services (engine uninstall requested)', params: idParams('projectId'), response: NoContent },
  }, async (req, reply) => {
    await svc.remove(req.principal, req.params.projectId);
    return reply.code(204).send(null);
  });
}
