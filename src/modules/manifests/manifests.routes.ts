// HTTP routes of infrastructure as code (decision 0745): apply or plan (`?dry_run=true`) a
// berth.yaml at an organization or a project, export an environment or a project as the file,
// and the document's JSON Schema (public: editors fetch it). Thin.
import { Type } from 'typebox';
import type { AppContext } from '../../context.ts';
import type { App } from '../../http/app-type.ts';
import { idParams } from '../../http/schemas.ts';
import { manifestSchemaText } from './document.ts';
import { ApplyRequest, ApplyResult, DryRunQuery } from './manifest.schemas.ts';

const tags = ['Infrastructure as code'];
const Yaml = Type.String({ description: 'the berth.yaml text (application/yaml)' });
const APPLY = 'Apply a berth.yaml: every change in one transaction (all or nothing); `?dry_run=true` answers the plan and writes nothing. '
  + 'A bad document is a 400 listing every problem with its file, line and column';

export function manifestRoutes(app: App, ctx: AppContext): void {
  const svc = ctx.services.manifests;
  app.post('/organization/:organizationId/apply', {
    schema: { tags, operationId: 'applyOrganizationManifest', summary: `${APPLY} (the project named by the document, made when missing)`, params: idParams('organizationId'), querystring: DryRunQuery, body: ApplyRequest, response: { 200: ApplyResult } },
  }, async (req) => svc.applyToOrganization(req.principal, req.params.organizationId, req.body, req.query.dry_run === true));
  app.post('/project/:projectId/apply', {
    schema: { tags, operationId: 'applyProjectManifest', summary: APPLY, params: idParams('projectId'), querystring: DryRunQuery, body: ApplyRequest, response: { 200: ApplyResult } },
  }, async (req) => svc.applyToProject(req.principal, req.params.projectId, req.body, req.query.dry_run === true));
  app.get('/environment/:environmentId/export', {
    schema: { tags, operationId: 'exportEnvironmentManifest', summary: 'The environment as a berth.yaml (secrets as references by name)', params: idParams('environmentId'), response: { 200: Yaml } },
  }, async (req, reply) => reply.type('application/yaml').send(await svc.exportEnvironment(req.principal, req.params.environmentId)));
  app.get('/project/:projectId/export', {
    schema: { tags, operationId: 'exportProjectManifest', summary: 'The project and all its environments as a berth.yaml', params: idParams('projectId'), response: { 200: Yaml } },
  }, async (req, reply) => reply.type('application/yaml').send(await svc.exportProject(req.principal, req.params.projectId)));
  app.get('/manifests/schema.json', {
    config: { public: true },
    schema: { tags, operationId: 'getManifestSchema', summary: 'The JSON Schema of berth.yaml (for editors: # yaml-language-server: $schema=<this URL>)', response: { 200: Type.Unknown() } },
  }, async (_req, reply) => reply.type('application/schema+json').send(manifestSchemaText()));
}
