// HTTP routes of agentic workflow output deliveries: a run's deliveries with every attempt
// (read), redeliver one (write; 202, a new attempt queued), and the workflow's output signing
// secret (read). Decision 0192.
import type { AppContext } from '../../context.ts';
import type { App } from '../../http/app-type.ts';
import { pageRequest } from '../../http/pagination.ts';
import { PageQuery, idParams, optionalBody } from '../../http/schemas.ts';
import { EmptyRequest } from '../deployments/deployments.schemas.ts';
import { OutputDelivery, OutputDeliveryList, OutputSigningSecret } from './outputs.schemas.ts';

const tags = ['Agentic Workflows'];

export function workflowOutputRoutes(app: App, ctx: AppContext): void {
  const svc = ctx.services.workflowOutputs;
  const runParams = idParams('agenticWorkflowId', 'runId');

  app.get('/agenticWorkflow/:agenticWorkflowId/run/:runId/outputDelivery', {
    schema: {
      tags, operationId: 'listAgenticWorkflowRunOutputDeliveries', params: runParams, querystring: PageQuery, response: { 200: OutputDeliveryList },
      summary: "The deliveries of a finished run's result to the workflow's outputs, each with every attempt (header values are never shown)",
    },
  }, async (req) => svc.list(req.principal, req.params.agenticWorkflowId, req.params.runId, pageRequest(req.query, 'configuration')));

  app.post('/agenticWorkflow/:agenticWorkflowId/run/:runId/outputDelivery/:deliveryId/redeliver', {
    preValidation: optionalBody,
    schema: {
      tags, operationId: 'redeliverAgenticWorkflowRunOutputDelivery', params: idParams('agenticWorkflowId', 'runId', 'deliveryId'),
      body: EmptyRequest, response: { 202: OutputDelivery },
      summary: "Deliver again (same body and webhook-id, to the output's current url and headers; 409 when the output is gone)",
    },
  }, async (req, reply) => reply.code(202).send(await svc.redeliver(req.principal, req.params.agenticWorkflowId, req.params.runId, req.params.deliveryId)));

  app.get('/agenticWorkflow/:agenticWorkflowId/outputSigningSecret', {
    schema: {
      tags, operationId: 'getAgenticWorkflowOutputSigningSecret', params: idParams('agenticWorkflowId'), response: { 200: OutputSigningSecret },
      summary: "The Standard Webhooks secret the workflow's output deliveries are signed with (derived from webhook.url's secret)",
    },
  }, async (req) => svc.signingSecret(req.principal, req.params.agenticWorkflowId));
}
