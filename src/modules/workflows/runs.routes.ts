// HTTP routes of workflow runs: the public incoming webhook (no Authorization; the secret in the
// path is never logged: the route logs at warn level only), run history, cancel, deployment history.
import { Type } from 'typebox';
import type { AppContext } from '../../context.ts';
import type { App } from '../../http/app-type.ts';
import { pageRequest } from '../../http/pagination.ts';
import { PageQuery, Uuid, idParams } from '../../http/schemas.ts';
import { CancelRequest, WorkflowDeploymentHistory, WorkflowRun, WorkflowRunList } from './runs.schemas.ts';
import { WEBHOOK_BODY_LIMIT } from './runs.service.ts';
import { DeploymentLogList, DeploymentLogQuery } from '../deployments/deployments.schemas.ts';

const tags = ['Agentic Workflows'];
const WorkflowParams = idParams('agenticWorkflowId');

export function workflowRunRoutes(app: App, ctx: AppContext): void {
  const svc = ctx.services.workflowRuns;

  app.post('/agenticWorkflow/:agenticWorkflowId/hook/:secret', {
    config: { public: true },
    logLevel: 'warn',
    bodyLimit: WEBHOOK_BODY_LIMIT,
    schema: {
      tags, operationId: 'triggerAgenticWorkflowWebhook', summary: 'Start a run (the workflow\'s webhook.url; any JSON body up to 64 KiB; no Authorization)',
      params: Type.Object({ agenticWorkflowId: Uuid, secret: Type.String({ maxLength: 128 }) }),
      response: { 202: WorkflowRun },
    },
  }, async (req, reply) => reply.code(202).send(await svc.hook(req.params.agenticWorkflowId, req.params.secret, req.ip, req.body ?? null)));

  app.get('/agenticWorkflow/:agenticWorkflowId/run', {
    schema: { tags, operationId: 'listAgenticWorkflowRuns', summary: 'Run history, newest first (20 per page by default)', params: WorkflowParams, querystring: PageQuery, response: { 200: WorkflowRunList } },
  }, async (req) => svc.list(req.principal, req.params.agenticWorkflowId, pageRequest(req.query, 'history')));

  app.get('/agenticWorkflow/:agenticWorkflowId/run/:runId', {
    schema: { tags, operationId: 'getAgenticWorkflowRun', params: idParams('agenticWorkflowId', 'runId'), response: { 200: WorkflowRun } },
  }, async (req) => svc.get(req.principal, req.params.agenticWorkflowId, req.params.runId));

  app.post('/agenticWorkflow/:agenticWorkflowId/run', {
    bodyLimit: WEBHOOK_BODY_LIMIT,
    schema: {
      tags, operationId: 'startAgenticWorkflowRun', params: WorkflowParams,
      summary: 'Start a run by hand (DEVOPS and above); its JSON body, if any, is the run\'s payload, as the webhook\'s is (64 KiB at most)',
      body: Type.Optional(Type.Unknown({ description: 'any JSON value: the trigger payload the agent receives' })),
      response: { 202: WorkflowRun },
    },
  }, async (req, reply) => {
    const run = await svc.start(req.principal, req.params.agenticWorkflowId, req.body ?? null);
    return reply.code(202).header('Location', `/agenticWorkflow/${run.agentic_workflow_id}/run/${run.id}`).send(run);
  });

  app.post('/agenticWorkflow/:agenticWorkflowId/run/:runId/cancel', {
    schema: {
      tags, operationId: 'cancelAgenticWorkflowRun', summary: 'Cancel one run, queued or running: its agent container is killed (409 once it has ended)',
      params: idParams('agenticWorkflowId', 'runId'), response: { 202: WorkflowRun },
    },
  }, async (req, reply) => reply.code(202).send(await svc.cancelRun(req.principal, req.params.agenticWorkflowId, req.params.runId)));

  app.get('/agenticWorkflow/:agenticWorkflowId/run/:runId/log', {
    schema: {
      tags, operationId: 'listAgenticWorkflowRunLog', params: idParams('agenticWorkflowId', 'runId'), querystring: DeploymentLogQuery, response: { 200: DeploymentLogList },
      summary: "The run's transcript and log: the image build, the clones, each assistant message, tool call and bounded tool result, refused egress (live: /deployment/{deployment_id}/log/stream)",
    },
  }, async (req) => {
    const q = req.query as { page?: number; page_size?: number; tail?: number };
    return svc.log(req.principal, req.params.agenticWorkflowId, req.params.runId, pageRequest(q, 'history'), q.tail);
  });

  app.post('/agenticWorkflow/:agenticWorkflowId/cancelDeployment', {
    schema: { tags, operationId: 'cancelAgenticWorkflowDeployment', summary: 'Cancel the current run (409 when none is queued or running)', params: WorkflowParams, body: Type.Optional(CancelRequest), response: { 202: WorkflowRun } },
  }, async (req, reply) => reply.code(202).send(await svc.cancel(req.principal, req.params.agenticWorkflowId)));

  app.get('/agenticWorkflow/:agenticWorkflowId/deploymentHistoryV2', {
    schema: { tags, operationId: 'listAgenticWorkflowDeploymentHistoryV2', summary: "The deployments of the workflow's runs, newest first", params: WorkflowParams, querystring: PageQuery, response: { 200: WorkflowDeploymentHistory } },
  }, async (req) => svc.deploymentHistory(req.principal, req.params.agenticWorkflowId, pageRequest(req.query, 'history')));
}
