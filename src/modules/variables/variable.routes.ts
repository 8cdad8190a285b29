// The generic `/variable` routes (any scope, by `parent_id` + `scope`, secrets included with a null
// value) and `GET /variable/effective`: what a project, environment or service resolves to.
import type { AppContext } from '../../context.ts';
import type { App } from '../../http/app-type.ts';
import { pageRequest } from '../../http/pagination.ts';
import { NoContent, idParams } from '../../http/schemas.ts';
import {
  EffectiveQuery, EffectiveVariableList, EnvironmentVariableEditRequest, VariableAliasRequest, VariableListQuery, VariableOverrideRequest,
  VariableRequest, VariableResponse, VariableResponseList, ImportQuery, VariableImport, VariableImportRequest,
} from './variables.schemas.ts';
import { toVariableResponse } from './variables.views.ts';

const tags = ['Variables'];
const VariableParams = idParams('variableId');

export function variableRoutes(app: App, ctx: AppContext): void {
  const svc = ctx.services.variables;

  app.get('/variable', {
    schema: { tags, operationId: 'listVariables', summary: 'List the variables and secrets a parent sees (its own and those of the scopes above it)', querystring: VariableListQuery, response: { 200: VariableResponseList } },
  }, async (req) => {
    const r = await svc.list(req.principal, req.query.scope, req.query.parent_id, 'any', pageRequest(req.query, 'configuration'), req.query.is_secret);
    return { results: r.results.map(toVariableResponse), pagination: r.pagination };
  });

  app.get('/variable/effective', {
    schema: {
      tags, operationId: 'listEffectiveVariables', querystring: EffectiveQuery, response: { 200: EffectiveVariableList },
      summary: 'The variables a parent runs with: built-ins (services), then project, environment and service variables, narrowest scope first; aliases and overrides resolved; secret values null',
    },
  }, async (req) => svc.effective(req.principal, req.query.scope, req.query.parent_id, pageRequest(req.query, 'configuration')));

  app.post('/variable', {
    schema: { tags, operationId: 'createVariable', body: VariableRequest, response: { 201: VariableResponse } },
  }, async (req, reply) => {
    const { variable_scope, variable_parent_id, ...input } = req.body;
    return reply.code(201).send(toVariableResponse(await svc.create(req.principal, variable_scope, variable_parent_id, input)));
  });

  app.post('/variable/import', {
    schema: { tags, operationId: 'importEnvironmentVariables', summary: 'Import variables and secrets into a service and the scopes above it', querystring: ImportQuery, body: VariableImportRequest, response: { 201: VariableImport } },
  }, async (req, reply) => reply.code(201).send(await svc.import(req.principal, req.query.service_type, req.query.service_id, req.body)));

  app.put('/variable/:variableId', {
    schema: { tags, operationId: 'editVariable', summary: 'Edit (members omitted keep their value)', params: VariableParams, body: EnvironmentVariableEditRequest, response: { 200: VariableResponse } },
  }, async (req) => toVariableResponse(await svc.edit(req.principal, null, req.params.variableId, 'any', req.body)));

  app.delete('/variable/:variableId', {
    schema: { tags, operationId: 'deleteVariable', summary: 'Delete (its aliases and overrides go too)', params: VariableParams, response: NoContent },
  }, async (req, reply) => {
    await svc.remove(req.principal, null, req.params.variableId, 'any');
    return reply.code(204).send(null);
  });

  app.post('/variable/:variableId/alias', {
    schema: { tags, operationId: 'createVariableAlias', params: VariableParams, body: VariableAliasRequest, response: { 201: VariableResponse } },
  }, async (req, reply) => {
    const { key, alias_scope, alias_parent_id, ...extras } = req.body;
    return reply.code(201).send(toVariableResponse(await svc.alias(req.principal, alias_scope, alias_parent_id, req.params.variableId, 'any', key, extras)));
  });

  app.post('/variable/:variableId/override', {
    schema: { tags, operationId: 'createVariableOverride', params: VariableParams, body: VariableOverrideRequest, response: { 201: VariableResponse } },
  }, async (req, reply) => {
    const { value, override_scope, override_parent_id, ...extras } = req.body;
    return reply.code(201).send(toVariableResponse(await svc.override(req.principal, override_scope, override_parent_id, req.params.variableId, 'any', value, extras)));
  });
}
