// HTTP routes of agentic workflows: list/create in an environment, get/edit/delete by id.
import type { AppContext } from '../../context.ts';
import type { App } from '../../http/app-type.ts';
import { pageRequest } from '../../http/pagination.ts';
import { NamedPageQuery, NoContent, idParams } from '../../http/schemas.ts';
import { AgenticWorkflow, AgenticWorkflowList, AgenticWorkflowRequest } from './workflows.schemas.ts';

const tags = ['Agentic Workflows'];
const EnvParams = idParams('environmentId');
const WorkflowParams = idParams('agenticWorkflowId');

export function workflowRoutes(app: App, ctx: AppContext): void {
  const svc = ctx.services.workflows;

  app.get('/environment/:environmentId/agenticWorkflow', {
    schema: { tags, operationId: 'listAgenticWorkflows', params: EnvParams, querystring: NamedPageQuery, response: { 200: AgenticWorkflowList } },
  }, async (req) => svc.list(req.principal, req.params.environmentId, pageRequest(req.query, 'configuration')));

  app.post('/environment/:environmentId/agenticWorkflow', {
    schema: { tags, operationId: 'createAgenticWorkflow', summary: 'Create an agentic workflow (only name is required)', params: EnvParams, body: AgenticWorkflowRequest, response: { 201: AgenticWorkflow } },
  }, async (req, reply) => reply.code(201).send(await svc.create(req.principal, req.params.environmentId, req.body, req.auditCreation)));

  app.get('/agenticWorkflow/:agenticWorkflowId', {
    schema: { tags, operationId: 'getAgenticWorkflow', params: WorkflowParams, response: { 200: AgenticWorkflow } },
  }, async (req) => svc.get(req.principal, req.params.agenticWorkflowId));

  app.put('/agenticWorkflow/:agenticWorkflowId', {
    schema: { tags, operationId: 'editAgenticWorkflow', summary: 'Edit an agentic workflow (members omitted keep their value; the api_key too)', params: WorkflowParams, body: AgenticWorkflowRequest, response: { 200: AgenticWorkflow } },
  }, async (req) => svc.update(req.principal, req.params.agenticWorkflowId, req.body));

  app.delete('/agenticWorkflow/:agenticWorkflowId', {
    schema: { tags, operationId: 'deleteAgenticWorkflow', params: WorkflowParams, response: NoContent },
  }, async (req, reply) => {
    await svc.remove(req.principal, req.params.agenticWorkflowId);
    return reply.code(204).send(null);
  });
}
