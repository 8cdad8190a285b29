// HTTP routes every service type shares: status of applications, containers, databases and jobs,
// the environment's listing of every service, and advanced settings (per service and defaults)
// of applications, containers and jobs. PUT advancedSettings answers 201 (the public API's).
// Every route is written with its public path and operationId; the service types share one
// function per kind of route (serviceRouteKinds) for its schema and handler.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import type { AppContext } from '../../context.ts';
import type { App } from '../../http/app-type.ts';
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

/** a service type as its routes see it: the path parameter of its id, services.type, 404 label, OpenAPI tag */
interface Family<Type extends string = string> { param: string; type: Type; label: string; tag: string }

const APPLICATION: Family<'APPLICATION'> = { param: 'applicationId', type: 'APPLICATION', label: 'Application', tag: 'Applications' };
const CONTAINER: Family<'CONTAINER'> = { param: 'containerId', type: 'CONTAINER', label: 'Container', tag: 'Containers' };
const DATABASE: Family = { param: 'databaseId', type: 'DATABASE', label: 'Database', tag: 'Databases' };
const JOB: Family = { param: 'jobId', type: 'JOB', label: 'Job', tag: 'Jobs' };

/** a service type with advanced settings: its kind and the schemas of its settings (complete, and a change) */
interface Settings extends Family { kind: ServiceKind; full: TSchema; patch: TSchema }

const APPLICATION_SETTINGS: Settings = { ...APPLICATION, kind: 'application', full: ApplicationAdvancedSettingsSchema, patch: ApplicationAdvancedSettingsPatchSchema };
const CONTAINER_SETTINGS: Settings = { ...CONTAINER, kind: 'container', full: ContainerAdvancedSettingsSchema, patch: ContainerAdvancedSettingsPatchSchema };
const JOB_SETTINGS: Settings = { ...JOB, kind: 'job', full: JobAdvancedSettingsSchema, patch: JobAdvancedSettingsPatchSchema };

/** the schema and handler of each kind of per-service route (the routes below give path and operationId) */
function serviceRouteKinds(ctx: AppContext) {
  const svc = ctx.services.services;
  const idOf = (req: FastifyRequest, f: Family) => (req.params as Record<string, string>)[f.param]!;
  const notApplied = (s: Settings) => notAppliedSettings(settingsEngine(ctx.engine.name), advancedSettingKeys(s.kind)).map((n) => n.key).join(', ');
  return {
    /** GET /<type>/{id}/status */
    status: (f: Family, operationId: string) => ({
      schema: { tags: [f.tag], operationId, params: idParams(f.param), response: { 200: ServiceStatus } },
      handler: async (req: FastifyRequest) => svc.status(req.principal, idOf(req, f), f.type, f.label),
    }),
    /** GET /<type>/{id}/link */
    links: (f: Family<'APPLICATION' | 'CONTAINER'>, operationId: string) => ({
      schema: {
        tags: [f.tag], operationId, params: idParams(f.param), response: { 200: LinkList },
        summary: 'Public URLs of the publicly accessible ports (INGRESS_DOMAIN, INGRESS_PORT); on the simulated engine nothing is deployed, so they do not answer',
      },
      handler: async (req: FastifyRequest) => serviceLinks({ db: ctx.db, config: ctx.config, services: svc, engine: ctx.engine, defaultHostsHttps: () => ctx.services.domains.defaultHostsHttps() }, req.principal, idOf(req, f), f.type, f.label),
    }),
    /** GET /<type>/{id}/advancedSettings */
    getSettings: (s: Settings, operationId: string) => {
      const keys = notApplied(s);
      return {
        schema: { tags: [s.tag], operationId, description: NOT_APPLIED_NOTE, params: idParams(s.param), response: { 200: s.full } },
        handler: async (req: FastifyRequest, reply: FastifyReply) => {
          const settings = await svc.getAdvancedSettings(req.principal, idOf(req, s), s.type, s.label);
          return reply.header(NOT_APPLIED_HEADER, keys).send(settings);
        },
      };
    },
    /** PUT /<type>/{id}/advancedSettings: 201 with the complete object */
    editSettings: (s: Settings, operationId: string) => {
      const keys = notApplied(s);
      return {
        schema: { tags: [s.tag], operationId, summary: 'Change advanced settings: the keys sent change, the others stay; answers the complete object', description: NOT_APPLIED_NOTE, params: idParams(s.param), body: s.patch, response: { 201: s.full } },
        handler: async (req: FastifyRequest, reply: FastifyReply) => reply.code(201).header(NOT_APPLIED_HEADER, keys)
          .send(await svc.editAdvancedSettings(req.principal, idOf(req, s), s.type, s.label, req.body as Record<string, unknown>)),
      };
    },
    /** GET /<type>/{id}/advancedSettings/engineSupport */
    settingsEngineSupport: (s: Settings, operationId: string) => ({
      schema: {
        tags: [s.tag], operationId, params: idParams(s.param), response: { 200: EngineSupport },
        summary: 'Which of the advanced settings the running engine applies, and why not the others (docs/advanced-settings.md)',
      },
      handler: async (req: FastifyRequest) => {
        await svc.getAdvancedSettings(req.principal, idOf(req, s), s.type, s.label);
        const engine = settingsEngine(ctx.engine.name);
        return {
          engine,
          results: advancedSettingKeys(s.kind).map((key) => {
            const support = settingSupport(engine, key);
            return { key, applied: support === true, reason: support === true ? null : support };
          }),
        };
      },
    }),
    /** GET /default<Type>AdvancedSettings */
    defaultSettings: (s: Settings, operationId: string) => ({
      schema: { tags: [s.tag], operationId, response: { 200: s.full } },
      handler: async () => defaultAdvancedSettings(s.kind),
    }),
  };
}

export function serviceRoutes(app: App, ctx: AppContext): void {
  const svc = ctx.services.services;
  const { status, links, getSettings, editSettings, settingsEngineSupport, defaultSettings } = serviceRouteKinds(ctx);

  app.get('/environment/:environmentId/services', {
    schema: { tags: ['Environments'], operationId: 'listEnvironmentServices', summary: 'Every service of the environment, of any type', params: idParams('environmentId'), querystring: NamedPageQuery, response: { 200: Paginated(ServiceListItem) } },
  }, async (req) => svc.listEnvironmentServices(req.principal, req.params.environmentId, pageRequest(req.query, 'configuration')));

  app.get('/application/:applicationId/status', status(APPLICATION, 'getApplicationStatus'));
  app.get('/container/:containerId/status', status(CONTAINER, 'getContainerStatus'));
  app.get('/database/:databaseId/status', status(DATABASE, 'getDatabaseStatus'));
  app.get('/job/:jobId/status', status(JOB, 'getJobStatus'));

  app.get('/application/:applicationId/link', links(APPLICATION, 'listApplicationLinks'));
  app.get('/container/:containerId/link', links(CONTAINER, 'listContainerLinks'));

  app.get('/application/:applicationId/advancedSettings', getSettings(APPLICATION_SETTINGS, 'getAdvancedSettings'));
  app.put('/application/:applicationId/advancedSettings', editSettings(APPLICATION_SETTINGS, 'editAdvancedSettings'));
  app.get('/application/:applicationId/advancedSettings/engineSupport', settingsEngineSupport(APPLICATION_SETTINGS, 'getApplicationAdvancedSettingsEngineSupport'));
  app.get('/defaultApplicationAdvancedSettings', defaultSettings(APPLICATION_SETTINGS, 'getDefaultApplicationAdvancedSettings'));

  app.get('/container/:containerId/advancedSettings', getSettings(CONTAINER_SETTINGS, 'getContainerAdvancedSettings'));
  app.put('/container/:containerId/advancedSettings', editSettings(CONTAINER_SETTINGS, 'editContainerAdvancedSettings'));
  app.get('/container/:containerId/advancedSettings/engineSupport', settingsEngineSupport(CONTAINER_SETTINGS, 'getContainerAdvancedSettingsEngineSupport'));
  app.get('/defaultContainerAdvancedSettings', defaultSettings(CONTAINER_SETTINGS, 'getDefaultContainerAdvancedSettings'));

  app.get('/job/:jobId/advancedSettings', getSettings(JOB_SETTINGS, 'getJobAdvancedSettings'));
  app.put('/job/:jobId/advancedSettings', editSettings(JOB_SETTINGS, 'editJobAdvancedSettings'));
  app.get('/job/:jobId/advancedSettings/engineSupport', settingsEngineSupport(JOB_SETTINGS, 'getJobAdvancedSettingsEngineSupport'));
  app.get('/defaultJobAdvancedSettings', defaultSettings(JOB_SETTINGS, 'getDefaultJobAdvancedSettings'));
}
