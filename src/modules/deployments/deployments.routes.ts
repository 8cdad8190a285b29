// HTTP routes of deployments: the actions of applications, containers, databases, jobs and
// environments (202 with the deployment record), the queue and histories, one deployment,
// service and deployment logs, and the rendered Kubernetes manifests of a service.
import type { TSchema } from 'typebox';
import type { AppContext } from '../../context.ts';
import type { App } from '../../http/app.ts';
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

interface Family { path: string; param: string; type: string; label: string; op: string; tag: string; deployBody: TSchema; restart: boolean }

const FAMILIES: Family[] = [
  { path: 'application', param: 'applicationId', type: 'APPLICATION', label: 'Application', op: 'Application', tag: 'Applications', deployBody: ApplicationDeployRequest, restart: true },
  { path: 'container', param: 'containerId', type: 'CONTAINER', label: 'Container', op: 'Container', tag: 'Containers', deployBody: ContainerDeployRequest, restart: true },
  { path: 'database', param: 'databaseId', type: 'DATABASE', label: 'Database', op: 'Database', tag: 'Databases', deployBody: EmptyRequest, restart: true },
  { path: 'job', param: 'jobId', type: 'JOB', label: 'Job', op: 'Job', tag: 'Jobs', deployBody: JobDeployRequest, restart: false },
];

const ACTIONS: Array<{ segment: string; action: DeploymentAction; verb: string }> = [
  { segment: 'deploy', action: 'DEPLOY', verb: 'deploy' },
  { segment: 'redeploy', action: 'REDEPLOY', verb: 'redeploy' },
  { segment: 'stop', action: 'STOP', verb: 'stop' },
  { segment: 'restart-service', action: 'RESTART', verb: 'reboot' },
  { segment: 'uninstall', action: 'UNINSTALL', verb: 'uninstall' },
];

export { optionalBody };

function historyPage(query: unknown) {
  const q = query as { page?: number; page_size?: number; pageSize?: number };
  return pageRequest({ page: q.page, page_size: q.page_size ?? q.pageSize }, 'history');
}

/** the public clients read `page` and `page_size` at the top of paginated histories */
function withPageMembers<T extends { pagination: { page: number; page_size: number } }>(list: T): T & { page: number; page_size: number } {
  return { ...list, page: list.pagination.page, page_size: list.pagination.page_size };
}

export function deploymentRoutes(app: App, ctx: AppContext): void {
  const svc = ctx.services.deployments;

  for (const f of FAMILIES) {
    const params = idParams(f.param);
    const tags = [f.tag];
    const id = (req: { params: unknown }) => (req.params as Record<string, string>)[f.param]!;
    for (const a of ACTIONS) {
      if (a.action === 'RESTART' && !f.restart) continue;
      app.post(`/${f.path}/:${f.param}/${a.segment}`, {
        preValidation: optionalBody,
        schema: {
          tags, operationId: `${a.verb}${f.op}`, summary: `Queue a ${a.action} of the ${f.label.toLowerCase()} (202 with the deployment record)`,
          params, body: a.action === 'DEPLOY' ? f.deployBody : EmptyRequest, response: { 202: Deployment },
        },
      }, async (req, reply) => reply.code(202).send(
        await svc.act(req.principal, id(req), f.type, f.label, a.action, (req.body ?? {}) as { git_commit_id?: string | null; image_tag?: string | null })));
    }
    for (const version of ['', 'V2']) {
      app.get(`/${f.path}/:${f.param}/deploymentHistory${version}`, {
        schema: {
          tags, operationId: `list${f.op}DeploymentHistory${version}`, params, querystring: HistoryQuery, response: { 200: DeploymentHistoryList },
          summary: `The ${f.label.toLowerCase()}'s deployments, newest first (20 a page by default)${version ? '' : '; the same list as deploymentHistoryV2'}`,
        },
      }, async (req) => withPageMembers(await svc.history(req.principal, id(req), f.type, f.label, historyPage(req.query))));
    }
    app.get(`/${f.path}/:${f.param}/log`, {
      schema: { tags, operationId: `list${f.op}Log`, summary: 'The last lines of the build, deployment and runtime logs', params, querystring: ServiceLogQuery, response: { 200: ServiceLogList } },
    }, async (req) => svc.serviceLogs(req.principal, id(req), f.type, f.label, (req.query as { tail?: number }).tail ?? 1000));
    app.get(`/${f.path}/:${f.param}/manifest`, {
      schema: { tags, operationId: `get${f.op}Manifest`, summary: 'The Kubernetes objects a real engine would apply (JSON, or YAML with ?format=yaml)', params, querystring: ManifestQuery, response: { 200: ManifestList } },
    }, async (req, reply) => {
      const objects = await renderServiceManifests(ctx, req.principal, id(req), f.type, f.label);
      if ((req.query as { format?: string }).format === 'yaml') {
        // the YAML writer is loaded on the first YAML manifest asked for (idle memory, issue 15)
        const { toYaml } = await import('../../engine/yaml.ts');
        return reply.type('application/yaml').serializer((v: unknown) => v as string).send(toYaml(objects) as never);
      }
      return { results: objects };
    });
  }

  const envParams = idParams('environmentId');
  const envTags = ['Environments'];
  for (const a of ACTIONS.filter((x) => x.action !== 'RESTART')) {
    app.post(`/environment/:environmentId/${a.segment}`, {
      preValidation: optionalBody,
      schema: { tags: envTags, operationId: `${a.verb}Environment`, summary: `Queue a ${a.action} of every service of the environment`, params: envParams, body: EmptyRequest, response: { 202: EnvironmentActionResult } },
    }, async (req, reply) => reply.code(202).send(await svc.actOnEnvironment(req.principal, req.params.environmentId, a.action)));
  }
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
