// HTTP routes every service type shares: status of applications, containers, databases and jobs,
// the environment's listing of every service, and advanced settings (per service and defaults)
// of applications, containers and jobs. PUT advancedSettings answers 201 (the public API's).
import type { TSchema } from 'typebox';
import type { AppContext } from '../../context.ts';
import type { App } from '../../http/app.ts';
import { pageRequest } from '../../http/pagination.ts';
import { NamedPageQuery, Paginated, idParams } from '../../http/schemas.ts';
import {
  ApplicationAdvancedSettingsPatchSchema, ApplicationAdvancedSettingsSchema, ContainerAdvancedSettingsPatchSchema,
  ContainerAdvancedSettingsSchema, JobAdvancedSettingsPatchSchema, JobAdvancedSettingsSchema, defaultAdvancedSettings, type ServiceKind,
} from './advanced-settings/index.ts';
import { ServiceListItem, ServiceStatus } from './common.schemas.ts';
import { serviceLinks } from './links.ts';
import { Type } from 'typebox';

const LinkList = Type.Object({
  results: Type.Array(Type.Object({
    service_id: Type.String({ format: 'uuid' }), service_type: Type.String(), url: Type.String(), internal_port: Type.Integer(),
    external_port: Type.Integer(), is_qovery_domain: Type.Boolean(), is_default: Type.Boolean(),
  }, { title: 'Link' })),
  public_urls_unavailable_reason: Type.Union([Type.String(), Type.Null()], {
    description: 'why these URLs do not answer (a docker engine without its ingress proxy: results are then empty; the simulated engine); null when they do',
  }),
});

const TYPES = [
  { path: 'application', type: 'APPLICATION', label: 'Application', tag: 'Applications', status: 'getApplicationStatus' },
  { path: 'container', type: 'CONTAINER', label: 'Container', tag: 'Containers', status: 'getContainerStatus' },
  { path: 'database', type: 'DATABASE', label: 'Database', tag: 'Databases', status: 'getDatabaseStatus' },
  { path: 'job', type: 'JOB', label: 'Job', tag: 'Jobs', status: 'getJobStatus' },
] as const;

const SETTINGS: Array<{ kind: ServiceKind; path: string; type: string; label: string; tag: string; full: TSchema; patch: TSchema; ops: [string, string, string] }> = [
  { kind: 'application', path: 'application', type: 'APPLICATION', label: 'Application', tag: 'Applications', full: ApplicationAdvancedSettingsSchema, patch: ApplicationAdvancedSettingsPatchSchema, ops: ['getAdvancedSettings', 'editAdvancedSettings', 'getDefaultApplicationAdvancedSettings'] },
  { kind: 'container', path: 'container', type: 'CONTAINER', label: 'Container', tag: 'Containers', full: ContainerAdvancedSettingsSchema, patch: ContainerAdvancedSettingsPatchSchema, ops: ['getContainerAdvancedSettings', 'editContainerAdvancedSettings', 'getDefaultContainerAdvancedSettings'] },
  { kind: 'job', path: 'job', type: 'JOB', label: 'Job', tag: 'Jobs', full: JobAdvancedSettingsSchema, patch: JobAdvancedSettingsPatchSchema, ops: ['getJobAdvancedSettings', 'editJobAdvancedSettings', 'getDefaultJobAdvancedSettings'] },
];

export function serviceRoutes(app: App, ctx: AppContext): void {
  const svc = ctx.services.services;

  app.get('/environment/:environmentId/services', {
    schema: { tags: ['Environments'], operationId: 'listEnvironmentServices', summary: 'Every service of the environment, of any type', params: idParams('environmentId'), querystring: NamedPageQuery, response: { 200: Paginated(ServiceListItem) } },
  }, async (req) => svc.listEnvironmentServices(req.principal, req.params.environmentId, pageRequest(req.query, 'configuration')));

  for (const t of TYPES) {
    const idName = `${t.path}Id`;
    app.get(`/${t.path}/:${idName}/status`, {
      schema: { tags: [t.tag], operationId: t.status, params: idParams(idName), response: { 200: ServiceStatus } },
    }, async (req) => svc.status(req.principal, (req.params as Record<string, string>)[idName]!, t.type, t.label));
  }

  for (const t of [TYPES[0], TYPES[1]]) {
    const idName = `${t.path}Id`;
    app.get(`/${t.path}/:${idName}/link`, {
      schema: {
        tags: [t.tag], operationId: `list${t.label}Links`, params: idParams(idName), response: { 200: LinkList },
        summary: 'Public URLs of the publicly accessible ports (INGRESS_DOMAIN, INGRESS_PORT); on the simulated engine nothing is deployed, so they do not answer',
      },
    }, async (req) => serviceLinks({ db: ctx.db, config: ctx.config, services: svc, engine: ctx.engine }, req.principal, (req.params as Record<string, string>)[idName]!, t.type, t.label));
  }

  for (const s of SETTINGS) {
    const idName = `${s.path}Id`;
    const title = s.kind[0]!.toUpperCase() + s.kind.slice(1);
    app.get(`/${s.path}/:${idName}/advancedSettings`, {
      schema: { tags: [s.tag], operationId: s.ops[0], params: idParams(idName), response: { 200: s.full } },
    }, async (req) => svc.getAdvancedSettings(req.principal, (req.params as Record<string, string>)[idName]!, s.type, s.label));

    app.put(`/${s.path}/:${idName}/advancedSettings`, {
      schema: { tags: [s.tag], operationId: s.ops[1], summary: 'Change advanced settings: the keys sent change, the others stay; answers the complete object', params: idParams(idName), body: s.patch, response: { 201: s.full } },
    }, async (req, reply) => reply.code(201).send(await svc.editAdvancedSettings(req.principal, (req.params as Record<string, string>)[idName]!, s.type, s.label, req.body as Record<string, unknown>)));

    app.get(`/default${title}AdvancedSettings`, {
      schema: { tags: [s.tag], operationId: s.ops[2], response: { 200: s.full } },
    }, async () => defaultAdvancedSettings(s.kind));
  }
}
