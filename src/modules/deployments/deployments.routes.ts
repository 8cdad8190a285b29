// HTTP routes of deployments: the actions of applications, containers, databases, jobs and
// environments (202 with the deployment record), the queue and histories, one deployment,
// service and deployment logs, and the rendered Kubernetes manifests of a service.
// Every route is written with its public path and operationId; the routes of the four service
// types share one function per action (serviceAction, history, serviceLog, manifest), which gives
// the route its schema and handler.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import type { AppContext } from '../../context.ts';
import type { App } from '../../http/app-type.ts';
import { pageRequest } from '../../http/pagination.ts';
import { PageQuery, idParams, optionalBody } from '../../http/schemas.ts';
import type { DeploymentAction } from './deployments.rules.ts';
import {
  ApplicationDeployRequest, CancelRequest, ContainerDeployRequest, Deployment, DeploymentHistoryList, DeploymentList, DeploymentLogList,
  EnvironmentStatus, EnvironmentStatuses,
  DeploymentLogQuery, EmptyRequest, EnvironmentActionResult, HistoryQuery, JobDeployRequest, ManifestList, ManifestQuery,
  ServiceLogList, ServiceLogQuery,
} from './deployments.schemas.ts';
import { renderServiceManifests } from './manifests.ts';

/** a service type as its routes see it: the path parameter of its id, services.type, 404 label, OpenAPI tag */
interface Family { param: string; type: string; label: string; tag: string }

const APPLICATION: Family = { param: 'applicationId', type: 'APPLICATION', label: 'Application', tag: 'Applications' };
const CONTAINER: Family = { param: 'containerId', type: 'CONTAINER', label: 'Container', tag: 'Containers' };
const DATABASE: Family = { param: 'databaseId', type: 'DATABASE', label: 'Database', tag: 'Databases' };
const JOB: Family = { param: 'jobId', type: 'JOB', label: 'Job', tag: 'Jobs' };

function historyPage(query: unknown) {
  const q = query as { page?: number; page_size?: number; pageSize?: number };
  return pageRequest({ page: q.page, page_size: q.page_size ?? q.pageSize }, 'history');
}

/** the public clients read `page` and `page_size` at the top of paginated histories */
function withPageMembers<T extends { pagination: { page: number; page_size: number } }>(list: T): T & { page: number; page_size: number } {
  return { ...list, page: list.pagination.page, page_size: list.pagination.page_size };
}

/** the schema and handler of each kind of per-service route (the routes below give path and operationId) */
function serviceRouteKinds(ctx: AppContext) {
  const svc = ctx.services.deployments;
  const idOf = (req: FastifyRequest, f: Family) => (req.params as Record<string, string>)[f.param]!;
  return {
    /** POST /<type>/{id}/deploy|redeploy|stop|restart-service|uninstall: 202 with the deployment record */
    serviceAction: (f: Family, action: DeploymentAction, operationId: string, body: TSchema = EmptyRequest) => ({
      preValidation: optionalBody,
      schema: {
        tags: [f.tag], operationId, summary: `Queue a ${action} of the ${f.label.toLowerCase()} (202 with the deployment record)`,
        params: idParams(f.param), body, response: { 202: Deployment },
      },
      handler: async (req: FastifyRequest, reply: FastifyReply) => reply.code(202).send(
        await svc.act(req.principal, idOf(req, f), f.type, f.label, action, (req.body ?? {}) as { git_commit_id?: string | null; image_tag?: string | null })),
    }),
    /** GET /<type>/{id}/deploymentHistory and …/deploymentHistoryV2 (the same list) */
    history: (f: Family, operationId: string, version: '' | 'V2') => ({
      schema: {
        tags: [f.tag], operationId, params: idParams(f.param), querystring: HistoryQuery, response: { 200: DeploymentHistoryList },
        summary: `The ${f.label.toLowerCase()}'s deployments, newest first (20 a page by default)${version ? '' : '; the same list as deploymentHistoryV2'}`,
      },
      handler: async (req: FastifyRequest) => withPageMembers(await svc.history(req.principal, idOf(req, f), f.type, f.label, historyPage(req.query))),
    }),
    /** GET /<type>/{id}/log */
    serviceLog: (f: Family, operationId: string) => ({
      schema: { tags: [f.tag], operationId, summary: 'The last lines of the build, deployment and runtime logs', params: idParams(f.param), querystring: ServiceLogQuery, response: { 200: ServiceLogList } },
      handler: async (req: FastifyRequest) => svc.serviceLogs(req.principal, idOf(req, f), f.type, f.label, (req.query as { tail?: number }).tail ?? 1000),
    }),
    /** GET /<type>/{id}/manifest */
    manifest: (f: Family, operationId: string) => ({
      schema: { tags: [f.tag], operationId, summary: 'The Kubernetes objects a real engine would apply (JSON, or YAML with ?format=yaml)', params: idParams(f.param), querystring: ManifestQuery, response: { 200: ManifestList } },
      handler: async (req: FastifyRequest, reply: FastifyReply) => {
        const objects = await renderServiceManifests({ db: ctx.db, sealer: ctx.sealer, scope: ctx.services.scope }, req.principal, idOf(req, f), f.type, f.label);
        if ((req.query as { format?: string }).format === 'yaml') {
          // the YAML writer is loaded on the first YAML manifest asked for (idle memory, issue 15)
          const { toYaml } = await import('../../engine/index.ts');
          return reply.type('application/yaml').serializer((v: unknown) => v as string).send(toYaml(objects) as never);
        }
        return { results: objects };
      },
    }),
  };
}

export function deploymentRoutes(app: App, ctx: AppContext): void {
  const svc = ctx.services.deployments;
  const { serviceAction, history, serviceLog, manifest } = serviceRouteKinds(ctx);

  app.post('/application/:applicationId/deploy', serviceAction(APPLICATION, 'DEPLOY', 'deployApplication', ApplicationDeployRequest));
  app.post('/application/:applicationId/redeploy', serviceAction(APPLICATION, 'REDEPLOY', 'redeployApplication'));
  app.post('/application/:applicationId/stop', serviceAction(APPLICATION, 'STOP', 'stopApplication'));
  app.post('/application/:applicationId/restart-service', serviceAction(APPLICATION, 'RESTART', 'rebootApplication'));
  app.post('/application/:applicationId/uninstall', serviceAction(APPLICATION, 'UNINSTALL', 'uninstallApplication'));
  app.get('/application/:applicationId/deploymentHistory', history(APPLICATION, 'listApplicationDeploymentHistory', ''));
  app.get('/application/:applicationId/deploymentHistoryV2', history(APPLICATION, 'listApplicationDeploymentHistoryV2', 'V2'));
  app.get('/application/:applicationId/log', serviceLog(APPLICATION, 'listApplicationLog'));
  app.get('/application/:applicationId/manifest', manifest(APPLICATION, 'getApplicationManifest'));

  app.post('/container/:containerId/deploy', serviceAction(CONTAINER, 'DEPLOY', 'deployContainer', ContainerDeployRequest));
  app.post('/container/:containerId/redeploy', serviceAction(CONTAINER, 'REDEPLOY', 'redeployContainer'));
  app.post('/container/:containerId/stop', serviceAction(CONTAINER, 'STOP', 'stopContainer'));
  app.post('/container/:containerId/restart-service', serviceAction(CONTAINER, 'RESTART', 'rebootContainer'));
  app.post('/container/:containerId/uninstall', serviceAction(CONTAINER, 'UNINSTALL', 'uninstallContainer'));
  app.get('/container/:containerId/deploymentHistory', history(CONTAINER, 'listContainerDeploymentHistory', ''));
  app.get('/container/:containerId/deploymentHistoryV2', history(CONTAINER, 'listContainerDeploymentHistoryV2', 'V2'));
  app.get('/container/:containerId/log', serviceLog(CONTAINER, 'listContainerLog'));
  app.get('/container/:containerId/manifest', manifest(CONTAINER, 'getContainerManifest'));

  app.post('/database/:databaseId/deploy', serviceAction(DATABASE, 'DEPLOY', 'deployDatabase'));
  app.post('/database/:databaseId/redeploy', serviceAction(DATABASE, 'REDEPLOY', 'redeployDatabase'));
  app.post('/database/:databaseId/stop', serviceAction(DATABASE, 'STOP', 'stopDatabase'));
  app.post('/database/:databaseId/restart-service', serviceAction(DATABASE, 'RESTART', 'rebootDatabase'));
  app.post('/database/:databaseId/uninstall', serviceAction(DATABASE, 'UNINSTALL', 'uninstallDatabase'));
  app.get('/database/:databaseId/deploymentHistory', history(DATABASE, 'listDatabaseDeploymentHistory', ''));
  app.get('/database/:databaseId/deploymentHistoryV2', history(DATABASE, 'listDatabaseDeploymentHistoryV2', 'V2'));
  app.get('/database/:databaseId/log', serviceLog(DATABASE, 'listDatabaseLog'));
  app.get('/database/:databaseId/manifest', manifest(DATABASE, 'getDatabaseManifest'));

  // a job has no restart (it runs to completion)
  app.post('/job/:jobId/deploy', serviceAction(JOB, 'DEPLOY', 'deployJob', JobDeployRequest));
  app.post('/job/:jobId/redeploy', serviceAction(JOB, 'REDEPLOY', 'redeployJob'));
  app.post('/job/:jobId/stop', serviceAction(JOB, 'STOP', 'stopJob'));
  app.post('/job/:jobId/uninstall', serviceAction(JOB, 'UNINSTALL', 'uninstallJob'));
  app.get('/job/:jobId/deploymentHistory', history(JOB, 'listJobDeploymentHistory', ''));
  app.get('/job/:jobId/deploymentHistoryV2', history(JOB, 'listJobDeploymentHistoryV2', 'V2'));
  app.get('/job/:jobId/log', serviceLog(JOB, 'listJobLog'));
  app.get('/job/:jobId/manifest', manifest(JOB, 'getJobManifest'));

  const envParams = idParams('environmentId');
  const envTags = ['Environments'];
  /** POST /environment/{id}/deploy|redeploy|stop|uninstall: every service of the environment */
  const environmentAction = (action: DeploymentAction, operationId: string) => ({
    preValidation: optionalBody,
    schema: { tags: envTags, operationId, summary: `Queue a ${action} of every service of the environment`, params: envParams, body: EmptyRequest, response: { 202: EnvironmentActionResult } },
    handler: async (req: FastifyRequest, reply: FastifyReply) => reply.code(202).send(
      await svc.actOnEnvironment(req.principal, (req.params as { environmentId: string }).environmentId, action)),
  });
  app.post('/environment/:environmentId/deploy', environmentAction('DEPLOY', 'deployEnvironment'));
  app.post('/environment/:environmentId/redeploy', environmentAction('REDEPLOY', 'redeployEnvironment'));
  app.post('/environment/:environmentId/stop', environmentAction('STOP', 'stopEnvironment'));
  app.post('/environment/:environmentId/uninstall', environmentAction('UNINSTALL', 'uninstallEnvironment'));
  app.post('/environment/:environmentId/cancelDeployment', {
    preValidation: optionalBody,
    schema: { tags: envTags, operationId: 'cancelEnvironmentDeployment', params: envParams, body: CancelRequest, response: { 202: EnvironmentActionResult } },
  }, async (req, reply) => reply.code(202).send(await svc.cancelEnvironment(req.principal, req.params.environmentId)));
  app.get('/environment/:environmentId/status', {
    schema: { tags: envTags, operationId: 'getEnvironmentStatus', summary: 'What the environment is doing and how its last deployment went', params: envParams, response: { 200: EnvironmentStatus } },
  }, async (req) => svc.environmentStatus(req.principal, req.params.environmentId));
  app.get('/environment/:environmentId/statuses', {
    schema: { tags: envTags, operationId: 'getEnvironmentStatuses', summary: 'The environment\'s status and each of its services\' statuses, by type', params: envParams, response: { 200: EnvironmentStatuses } },
  }, async (req) => svc.environmentStatuses(req.principal, req.params.environmentId));
  app.get('/environment/:environmentId/deploymentHistoryV2', {
    schema: { tags: envTags, operationId: 'listEnvironmentDeploymentHistoryV2', summary: 'Every deployment of the environment\'s services, newest first (20 a page by default)', params: envParams, querystring: HistoryQuery, response: { 200: DeploymentHistoryList } },
  }, async (req) => withPageMembers(await svc.environmentHistory(req.principal, req.params.environmentId, historyPage(req.query))));
  app.get('/environment/:environmentId/deploymentQueue', {
    schema: { tags: envTags, operationId: 'listDeploymentRequestByEnvironmentId', summary: 'Deployments waiting or running, in order', params: envParams, querystring: PageQuery, response: { 200: DeploymentList } },
  }, async (req) => svc.queue(req.principal, req.params.environmentId, pageRequest(req.query, 'configuration')));

  const depTags = ['Deployments'];
  const depParams = idParams('deploymentId');
  app.get('/deployment/:deploymentId', {
    schema: { tags: depTags, operationId: 'getDeployment', params: depParams, response: { 200: Deployment } },
  }, async (req) => svc.get(req.principal, req.params.deploymentId));
  app.get('/deployment/:deploymentId/log', {
    schema: { tags: depTags, operationId: 'listDeploymentLog', params: depParams, querystring: DeploymentLogQuery, response: { 200: DeploymentLogList } },
  }, async (req) => {
    const q = req.query as { page?: number; page_size?: number; tail?: number };
    return svc.deploymentLogs(req.principal, req.params.deploymentId, pageRequest(q, 'history'), q.tail);
  });
  app.post('/deployment/:deploymentId/cancel', {
    preValidation: optionalBody,
    schema: { tags: depTags, operationId: 'cancelDeployment', params: depParams, body: CancelRequest, response: { 202: Deployment } },
  }, async (req, reply) => reply.code(202).send(await svc.cancel(req.principal, req.params.deploymentId)));
  app.post('/deploymentQueue/:deploymentRequestId/cancelDeployment', {
    preValidation: optionalBody,
    schema: { tags: depTags, operationId: 'cancelDeploymentRequest', params: idParams('deploymentRequestId'), body: CancelRequest, response: { 202: Deployment } },
  }, async (req, reply) => reply.code(202).send(await svc.cancel(req.principal, req.params.deploymentRequestId)));
}
