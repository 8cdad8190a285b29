// The per-parent routes of variables and secrets (`/{project|environment|application|container|job}/
// {id}/environmentVariable|secret…`), generated from the PARENT_KINDS table with the public API's
// operationIds: a new service kind with a path segment gets all twelve routes for free.
import type { AppContext } from '../../context.ts';
import type { App } from '../../http/app.ts';
import { pageRequest } from '../../http/pagination.ts';
import { NoContent, PageQuery, idParams } from '../../http/schemas.ts';
import { PARENT_KINDS, type ParentKind } from './parents.ts';
import {
  EnvironmentVariable, EnvironmentVariableEditRequest, EnvironmentVariableList, EnvironmentVariableRequest, KeyRequest,
  Secret, SecretEditRequest, SecretList, ValueRequest, VariableImport, VariableImportRequest,
} from './variables.schemas.ts';
import { toEnvironmentVariable, toSecret } from './variables.views.ts';
import type { VariableRow } from './variables.repo.ts';

export function parentVariableRoutes(app: App, ctx: AppContext): void {
  for (const kind of PARENT_KINDS) if (kind.segment) registerKind(app, ctx, kind);
}

interface Flavor {
  flavor: 'variable' | 'secret';
  segment: string; idParam: string; noun: string; listOp: string;
  one: typeof EnvironmentVariable | typeof Secret; list: typeof EnvironmentVariableList | typeof SecretList;
  editBody: typeof EnvironmentVariableEditRequest | typeof SecretEditRequest;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- one handler serves both shapes
  view: (r: VariableRow) => any;
}

const FLAVORS: Flavor[] = [
  { flavor: 'variable', segment: 'environmentVariable', idParam: 'environmentVariableId', noun: 'EnvironmentVariable', listOp: 'EnvironmentVariable',
    one: EnvironmentVariable, list: EnvironmentVariableList, editBody: EnvironmentVariableEditRequest, view: toEnvironmentVariable },
  { flavor: 'secret', segment: 'secret', idParam: 'secretId', noun: 'Secret', listOp: 'Secrets',
    one: Secret, list: SecretList, editBody: SecretEditRequest, view: toSecret },
];

function registerKind(app: App, ctx: AppContext, kind: ParentKind): void {
  const svc = ctx.services.variables;
  const N = kind.operationName;
  const tags = ['Variables'];
  if (kind.importOperationId) {
    app.post(`/${kind.segment}/:${kind.param}/environmentVariable/import`, {
      schema: { tags, operationId: kind.importOperationId, summary: 'Import variables and secrets into this service and the scopes above it', params: idParams(kind.param), body: VariableImportRequest, response: { 201: VariableImport } },
    }, async (req, reply) => reply.code(201).send(await svc.import(req.principal, kind.scope, (req.params as Record<string, string>)[kind.param]!, req.body)));
  }
  for (const f of FLAVORS) {
    const base = `/${kind.segment}/:${kind.param}/${f.segment}`;
    const owner = (params: Record<string, string>) => ({ scope: kind.scope, id: params[kind.param]! });
    const isSecret = f.flavor === 'secret';
    const what = isSecret ? 'secrets' : 'environment variables';

    app.get(base, {
      schema: { tags, operationId: `list${N}${f.listOp}`, summary: `List the ${what} a ${kind.label.toLowerCase()} sees (its own and those of the scopes above it)`, params: idParams(kind.param), querystring: PageQuery, response: { 200: f.list } },
    }, async (req) => {
      const r = await svc.list(req.principal, kind.scope, (req.params as Record<string, string>)[kind.param]!, f.flavor, pageRequest(req.query, 'configuration'));
      return { results: r.results.map(f.view), pagination: r.pagination };
    });

    app.post(base, {
      schema: { tags, operationId: `create${N}${f.noun}`, params: idParams(kind.param), body: EnvironmentVariableRequest, response: { 201: f.one } },
    }, async (req, reply) => reply.code(201).send(f.view(await svc.create(req.principal, kind.scope, (req.params as Record<string, string>)[kind.param]!, { ...req.body, is_secret: isSecret }))));

    app.put(`${base}/:${f.idParam}`, {
      schema: { tags, operationId: `edit${N}${f.noun}`, summary: 'Edit (members omitted keep their value)', params: idParams(kind.param, f.idParam), body: f.editBody, response: { 200: f.one } },
    }, async (req) => {
      const params = req.params as Record<string, string>;
      return f.view(await svc.edit(req.principal, owner(params), params[f.idParam]!, f.flavor, req.body as never));
    });

    app.delete(`${base}/:${f.idParam}`, {
      schema: { tags, operationId: `delete${N}${f.noun}`, summary: 'Delete (its aliases and overrides go too)', params: idParams(kind.param, f.idParam), response: NoContent },
    }, async (req, reply) => {
      const params = req.params as Record<string, string>;
      await svc.remove(req.principal, owner(params), params[f.idParam]!, f.flavor);
      return reply.code(204).send(null);
    });

    app.post(`${base}/:${f.idParam}/override`, {
      schema: { tags, operationId: `create${N}${f.noun}Override`, summary: `Override a variable of a higher scope here (same key, new value)`, params: idParams(kind.param, f.idParam), body: ValueRequest, response: { 201: f.one } },
    }, async (req, reply) => {
      const params = req.params as Record<string, string>;
      const { value, ...extras } = req.body;
      return reply.code(201).send(f.view(await svc.override(req.principal, kind.scope, params[kind.param]!, params[f.idParam]!, f.flavor, value, extras)));
    });

    app.post(`${base}/:${f.idParam}/alias`, {
      schema: { tags, operationId: `create${N}${f.noun}Alias`, summary: `Alias a variable of this or a higher scope here (new key, same value)`, params: idParams(kind.param, f.idParam), body: KeyRequest, response: { 201: f.one } },
    }, async (req, reply) => {
      const params = req.params as Record<string, string>;
      const { key, ...extras } = req.body;
      return reply.code(201).send(f.view(await svc.alias(req.principal, kind.scope, params[kind.param]!, params[f.idParam]!, f.flavor, key, extras)));
    });
  }
}
