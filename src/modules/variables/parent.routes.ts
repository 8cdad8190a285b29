// The per-parent routes of variables and secrets (`/{project|environment|application|container|job}/
// {id}/environmentVariable|secret…`), written with their public paths and operationIds: twelve for
// each parent (six for variables, six for secrets) and an import for each service. The parents
// and the two flavors share one function per kind of route (variableRouteKinds) for its schema and
// handler; a new service kind with per-parent routes is one more block of lines below.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import type { AppContext } from '../../context.ts';
import type { App } from '../../http/app-type.ts';
import { pageRequest } from '../../http/pagination.ts';
import { NoContent, PageQuery, idParams } from '../../http/schemas.ts';
import { kindOfScope, type ParentKind } from './parents.ts';
import {
  EnvironmentVariable, EnvironmentVariableEditRequest, EnvironmentVariableList, EnvironmentVariableRequest, KeyRequest,
  Secret, SecretEditRequest, SecretList, ValueRequest, VariableImport, VariableImportRequest,
} from './variables.schemas.ts';
import { toEnvironmentVariable, toSecret } from './variables.views.ts';
import type { VariableRow } from './variables.repo.ts';

const PROJECT = kindOfScope('PROJECT');
const ENVIRONMENT = kindOfScope('ENVIRONMENT');
const APPLICATION = kindOfScope('APPLICATION');
const CONTAINER = kindOfScope('CONTAINER');
const JOB = kindOfScope('JOB');

interface Flavor {
  flavor: 'variable' | 'secret';
  /** the path parameter of the variable's id */
  idParam: string;
  one: typeof EnvironmentVariable | typeof Secret; list: typeof EnvironmentVariableList | typeof SecretList;
  editBody: typeof EnvironmentVariableEditRequest | typeof SecretEditRequest;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- one handler serves both shapes
  view: (r: VariableRow) => any;
}

const VARIABLE: Flavor = { flavor: 'variable', idParam: 'environmentVariableId', one: EnvironmentVariable, list: EnvironmentVariableList, editBody: EnvironmentVariableEditRequest, view: toEnvironmentVariable };
const SECRET: Flavor = { flavor: 'secret', idParam: 'secretId', one: Secret, list: SecretList, editBody: SecretEditRequest, view: toSecret };

/** the schema and handler of each kind of per-parent route (the routes below give path and operationId) */
function variableRouteKinds(ctx: AppContext) {
  const svc = ctx.services.variables;
  const tags = ['Variables'];
  const params = (req: FastifyRequest) => req.params as Record<string, string>;
  const owner = (kind: ParentKind, req: FastifyRequest) => ({ scope: kind.scope, id: params(req)[kind.param]! });
  return {
    /** POST /<service>/{id}/environmentVariable/import */
    importInto: (kind: ParentKind, operationId: string) => ({
      schema: { tags, operationId, summary: 'Import variables and secrets into this service and the scopes above it', params: idParams(kind.param), body: VariableImportRequest, response: { 201: VariableImport } },
      handler: async (req: FastifyRequest, reply: FastifyReply) => reply.code(201).send(await svc.import(req.principal, kind.scope, params(req)[kind.param]!, req.body as Static<typeof VariableImportRequest>)),
    }),
    /** GET /<parent>/{id}/environmentVariable|secret */
    list: (kind: ParentKind, f: Flavor, operationId: string) => ({
      schema: {
        tags, operationId, summary: `List the ${f.flavor === 'secret' ? 'secrets' : 'environment variables'} a ${kind.label.toLowerCase()} sees (its own and those of the scopes above it)`,
        params: idParams(kind.param), querystring: PageQuery, response: { 200: f.list },
      },
      handler: async (req: FastifyRequest) => {
        const r = await svc.list(req.principal, kind.scope, params(req)[kind.param]!, f.flavor, pageRequest(req.query as { page?: number; page_size?: number }, 'configuration'));
        return { results: r.results.map(f.view), pagination: r.pagination };
      },
    }),
    /** POST /<parent>/{id}/environmentVariable|secret: 201 */
    create: (kind: ParentKind, f: Flavor, operationId: string) => ({
      schema: { tags, operationId, params: idParams(kind.param), body: EnvironmentVariableRequest, response: { 201: f.one } },
      handler: async (req: FastifyRequest, reply: FastifyReply) => reply.code(201).send(f.view(
        await svc.create(req.principal, kind.scope, params(req)[kind.param]!, { ...(req.body as Static<typeof EnvironmentVariableRequest>), is_secret: f.flavor === 'secret' }))),
    }),
    /** PUT /<parent>/{id}/environmentVariable|secret/{id} */
    edit: (kind: ParentKind, f: Flavor, operationId: string) => ({
      schema: { tags, operationId, summary: 'Edit (members omitted keep their value)', params: idParams(kind.param, f.idParam), body: f.editBody, response: { 200: f.one } },
      handler: async (req: FastifyRequest) => f.view(await svc.edit(req.principal, owner(kind, req), params(req)[f.idParam]!, f.flavor, req.body as never)),
    }),
    /** DELETE /<parent>/{id}/environmentVariable|secret/{id}: 204 */
    remove: (kind: ParentKind, f: Flavor, operationId: string) => ({
      schema: { tags, operationId, summary: 'Delete (its aliases and overrides go too)', params: idParams(kind.param, f.idParam), response: NoContent },
      handler: async (req: FastifyRequest, reply: FastifyReply) => {
        await svc.remove(req.principal, owner(kind, req), params(req)[f.idParam]!, f.flavor);
        return reply.code(204).send(null);
      },
    }),
    /** POST /<parent>/{id}/environmentVariable|secret/{id}/override: 201 */
    override: (kind: ParentKind, f: Flavor, operationId: string) => ({
      schema: { tags, operationId, summary: `Override a variable of a higher scope here (same key, new value)`, params: idParams(kind.param, f.idParam), body: ValueRequest, response: { 201: f.one } },
      handler: async (req: FastifyRequest, reply: FastifyReply) => {
        const { value, ...extras } = req.body as Static<typeof ValueRequest>;
        return reply.code(201).send(f.view(await svc.override(req.principal, kind.scope, params(req)[kind.param]!, params(req)[f.idParam]!, f.flavor, value, extras)));
      },
    }),
    /** POST /<parent>/{id}/environmentVariable|secret/{id}/alias: 201 */
    alias: (kind: ParentKind, f: Flavor, operationId: string) => ({
      schema: { tags, operationId, summary: `Alias a variable of this or a higher scope here (new key, same value)`, params: idParams(kind.param, f.idParam), body: KeyRequest, response: { 201: f.one } },
      handler: async (req: FastifyRequest, reply: FastifyReply) => {
        const { key, ...extras } = req.body as Static<typeof KeyRequest>;
        return reply.code(201).send(f.view(await svc.alias(req.principal, kind.scope, params(req)[kind.param]!, params(req)[f.idParam]!, f.flavor, key, extras)));
      },
    }),
  };
}

export function parentVariableRoutes(app: App, ctx: AppContext): void {
  const { importInto, list, create, edit, remove, override, alias } = variableRouteKinds(ctx);

  app.get('/project/:projectId/environmentVariable', list(PROJECT, VARIABLE, 'listProjectEnvironmentVariable'));
  app.post('/project/:projectId/environmentVariable', create(PROJECT, VARIABLE, 'createProjectEnvironmentVariable'));
  app.put('/project/:projectId/environmentVariable/:environmentVariableId', edit(PROJECT, VARIABLE, 'editProjectEnvironmentVariable'));
  app.delete('/project/:projectId/environmentVariable/:environmentVariableId', remove(PROJECT, VARIABLE, 'deleteProjectEnvironmentVariable'));
  app.post('/project/:projectId/environmentVariable/:environmentVariableId/override', override(PROJECT, VARIABLE, 'createProjectEnvironmentVariableOverride'));
  app.post('/project/:projectId/environmentVariable/:environmentVariableId/alias', alias(PROJECT, VARIABLE, 'createProjectEnvironmentVariableAlias'));
  app.get('/project/:projectId/secret', list(PROJECT, SECRET, 'listProjectSecrets'));
  app.post('/project/:projectId/secret', create(PROJECT, SECRET, 'createProjectSecret'));
  app.put('/project/:projectId/secret/:secretId', edit(PROJECT, SECRET, 'editProjectSecret'));
  app.delete('/project/:projectId/secret/:secretId', remove(PROJECT, SECRET, 'deleteProjectSecret'));
  app.post('/project/:projectId/secret/:secretId/override', override(PROJECT, SECRET, 'createProjectSecretOverride'));
  app.post('/project/:projectId/secret/:secretId/alias', alias(PROJECT, SECRET, 'createProjectSecretAlias'));

  app.get('/environment/:environmentId/environmentVariable', list(ENVIRONMENT, VARIABLE, 'listEnvironmentEnvironmentVariable'));
  app.post('/environment/:environmentId/environmentVariable', create(ENVIRONMENT, VARIABLE, 'createEnvironmentEnvironmentVariable'));
  app.put('/environment/:environmentId/environmentVariable/:environmentVariableId', edit(ENVIRONMENT, VARIABLE, 'editEnvironmentEnvironmentVariable'));
  app.delete('/environment/:environmentId/environmentVariable/:environmentVariableId', remove(ENVIRONMENT, VARIABLE, 'deleteEnvironmentEnvironmentVariable'));
  app.post('/environment/:environmentId/environmentVariable/:environmentVariableId/override', override(ENVIRONMENT, VARIABLE, 'createEnvironmentEnvironmentVariableOverride'));
  app.post('/environment/:environmentId/environmentVariable/:environmentVariableId/alias', alias(ENVIRONMENT, VARIABLE, 'createEnvironmentEnvironmentVariableAlias'));
  app.get('/environment/:environmentId/secret', list(ENVIRONMENT, SECRET, 'listEnvironmentSecrets'));
  app.post('/environment/:environmentId/secret', create(ENVIRONMENT, SECRET, 'createEnvironmentSecret'));
  app.put('/environment/:environmentId/secret/:secretId', edit(ENVIRONMENT, SECRET, 'editEnvironmentSecret'));
  app.delete('/environment/:environmentId/secret/:secretId', remove(ENVIRONMENT, SECRET, 'deleteEnvironmentSecret'));
  app.post('/environment/:environmentId/secret/:secretId/override', override(ENVIRONMENT, SECRET, 'createEnvironmentSecretOverride'));
  app.post('/environment/:environmentId/secret/:secretId/alias', alias(ENVIRONMENT, SECRET, 'createEnvironmentSecretAlias'));

  app.post('/application/:applicationId/environmentVariable/import', importInto(APPLICATION, 'importEnvironmentVariable'));
  app.get('/application/:applicationId/environmentVariable', list(APPLICATION, VARIABLE, 'listApplicationEnvironmentVariable'));
  app.post('/application/:applicationId/environmentVariable', create(APPLICATION, VARIABLE, 'createApplicationEnvironmentVariable'));
  app.put('/application/:applicationId/environmentVariable/:environmentVariableId', edit(APPLICATION, VARIABLE, 'editApplicationEnvironmentVariable'));
  app.delete('/application/:applicationId/environmentVariable/:environmentVariableId', remove(APPLICATION, VARIABLE, 'deleteApplicationEnvironmentVariable'));
  app.post('/application/:applicationId/environmentVariable/:environmentVariableId/override', override(APPLICATION, VARIABLE, 'createApplicationEnvironmentVariableOverride'));
  app.post('/application/:applicationId/environmentVariable/:environmentVariableId/alias', alias(APPLICATION, VARIABLE, 'createApplicationEnvironmentVariableAlias'));
  app.get('/application/:applicationId/secret', list(APPLICATION, SECRET, 'listApplicationSecrets'));
  app.post('/application/:applicationId/secret', create(APPLICATION, SECRET, 'createApplicationSecret'));
  app.put('/application/:applicationId/secret/:secretId', edit(APPLICATION, SECRET, 'editApplicationSecret'));
  app.delete('/application/:applicationId/secret/:secretId', remove(APPLICATION, SECRET, 'deleteApplicationSecret'));
  app.post('/application/:applicationId/secret/:secretId/override', override(APPLICATION, SECRET, 'createApplicationSecretOverride'));
  app.post('/application/:applicationId/secret/:secretId/alias', alias(APPLICATION, SECRET, 'createApplicationSecretAlias'));

  app.post('/container/:containerId/environmentVariable/import', importInto(CONTAINER, 'importContainerEnvironmentVariable'));
  app.get('/container/:containerId/environmentVariable', list(CONTAINER, VARIABLE, 'listContainerEnvironmentVariable'));
  app.post('/container/:containerId/environmentVariable', create(CONTAINER, VARIABLE, 'createContainerEnvironmentVariable'));
  app.put('/container/:containerId/environmentVariable/:environmentVariableId', edit(CONTAINER, VARIABLE, 'editContainerEnvironmentVariable'));
  app.delete('/container/:containerId/environmentVariable/:environmentVariableId', remove(CONTAINER, VARIABLE, 'deleteContainerEnvironmentVariable'));
  app.post('/container/:containerId/environmentVariable/:environmentVariableId/override', override(CONTAINER, VARIABLE, 'createContainerEnvironmentVariableOverride'));
  app.post('/container/:containerId/environmentVariable/:environmentVariableId/alias', alias(CONTAINER, VARIABLE, 'createContainerEnvironmentVariableAlias'));
  app.get('/container/:containerId/secret', list(CONTAINER, SECRET, 'listContainerSecrets'));
  app.post('/container/:containerId/secret', create(CONTAINER, SECRET, 'createContainerSecret'));
  app.put('/container/:containerId/secret/:secretId', edit(CONTAINER, SECRET, 'editContainerSecret'));
  app.delete('/container/:containerId/secret/:secretId', remove(CONTAINER, SECRET, 'deleteContainerSecret'));
  app.post('/container/:containerId/secret/:secretId/override', override(CONTAINER, SECRET, 'createContainerSecretOverride'));
  app.post('/container/:containerId/secret/:secretId/alias', alias(CONTAINER, SECRET, 'createContainerSecretAlias'));

  app.post('/job/:jobId/environmentVariable/import', importInto(JOB, 'importJobEnvironmentVariable'));
  app.get('/job/:jobId/environmentVariable', list(JOB, VARIABLE, 'listJobEnvironmentVariable'));
  app.post('/job/:jobId/environmentVariable', create(JOB, VARIABLE, 'createJobEnvironmentVariable'));
  app.put('/job/:jobId/environmentVariable/:environmentVariableId', edit(JOB, VARIABLE, 'editJobEnvironmentVariable'));
  app.delete('/job/:jobId/environmentVariable/:environmentVariableId', remove(JOB, VARIABLE, 'deleteJobEnvironmentVariable'));
  app.post('/job/:jobId/environmentVariable/:environmentVariableId/override', override(JOB, VARIABLE, 'createJobEnvironmentVariableOverride'));
  app.post('/job/:jobId/environmentVariable/:environmentVariableId/alias', alias(JOB, VARIABLE, 'createJobEnvironmentVariableAlias'));
  app.get('/job/:jobId/secret', list(JOB, SECRET, 'listJobSecrets'));
  app.post('/job/:jobId/secret', create(JOB, SECRET, 'createJobSecret'));
  app.put('/job/:jobId/secret/:secretId', edit(JOB, SECRET, 'editJobSecret'));
  app.delete('/job/:jobId/secret/:secretId', remove(JOB, SECRET, 'deleteJobSecret'));
  app.post('/job/:jobId/secret/:secretId/override', override(JOB, SECRET, 'createJobSecretOverride'));
  app.post('/job/:jobId/secret/:secretId/alias', alias(JOB, SECRET, 'createJobSecretAlias'));
}
