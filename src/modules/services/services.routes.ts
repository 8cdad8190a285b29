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
  ContainerAdvancedSettingsSchema, JobAdvancedSettingsPatchSchema, JobAdvancedSettingsSchema, advancedSettingKeys, defaultAdvancedSettings, type ServiceKind,
} from './advanced-settings/index.ts';
import { notAppliedSettings, settingSupport, type SettingsEngine } from './advanced-settings/engine-support.ts';
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

/** the keys of the answer the running engine does not apply, comma-separated (decision 0336) */
const NOT_APPLIED_HEADER = 'X-Berth-Settings-Not-Applied';
const NOT_APPLIED_NOTE = `The ${NOT_APPLIED_HEADER} response header lists the keys the running engine does not apply (comma-separated; …/advancedSettings/engineSupport says why; docs/advanced-settings.md).`;

const EngineSupport = Type.Object({
  engine: Type.Union([Type.Literal('docker'), Type.Literal('swarm'), Type.Literal('simulated')]),
  results: Type.Array(Type.Object({
    key: Type.String(), applied: Type.Boolean(), reason: Type.Union([Type.String(), Type.Null()], { description: 'why the engine does not apply it; null when it does' }),
  }, { title: 'AdvancedSettingEngineSupport' })),
}, { title: 'AdvancedSettingsEngineSupport' });

const settingsEngine = (name: string): SettingsEngine => (name === 'docker' || name === 'swarm' ? name : 'simulated');

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
    const notApplied = notAppliedSettings(settingsEngine(ctx.engine.name), advancedSettingKeys(s.kind)).map((n) => n.key).join(', ');
    app.get(`/${s.path}/:${idName}/advancedSettings`, {
      schema: { tags: [s.tag], operationId: s.ops[0], description: NOT_APPLIED_NOTE, params: idParams(idName), response: { 200: s.full } },
    }, async (req, reply) => {
      const settings = await svc.getAdvancedSettings(req.principal, (req.params as Record<string, string>)[idName]!, s.type, s.label);
      return reply.header(NOT_APPLIED_HEADER, notApplied).send(settings);
    });

    app.put(`/${s.path}/:${idName}/advancedSettings`, {
      schema: { tags: [s.tag], operationId: s.ops[1], summary: 'Change advanced settings: the keys sent change, the others stay; answers the complete object', description: NOT_APPLIED_NOTE, params: idParams(idName), body: s.patch, response: { 201: s.full } },
    }, async (req, reply) => reply.code(201).header(NOT_APPLIED_HEADER, notApplied)
      .send(await svc.editAdvancedSettings(req.principal, (req.params as Record<string, string>)[idName]!, s.type, s.label, req.body as Record<string, unknown>)));

    app.get(`/${s.path}/:${idName}/advancedSettings/engineSupport`, {
      schema: {
        tags: [s.tag], operationId: `get${title}AdvancedSettingsEngineSupport`, params: idParams(idName), response: { 200: EngineSupport },
        summary: 'Which of the advanced settings the running engine applies, and why not the others (docs/advanced-settings.md)',
      },
    }, async (req) => {
      await svc.getAdvancedSettings(req.principal, (req.params as Record<string, string>)[idName]!, s.type, s.label);
      const engine = settingsEngine(ctx.engine.name);
      return {
        engine,
        results: advancedSettingKeys(s.kind).map((key) => {
          const support = settingSupport(engine, key);
          return { key, applied: support === true, reason: support === true ? null : support };
        }),
      };
    });

    app.get(`/default${title}AdvancedSettings`, {
      schema: { tags: [s.tag], operationId: s.ops[2], response: { 200: s.full } },
    }, async () => defaultAdvancedSettings(s.kind));
  }
}
