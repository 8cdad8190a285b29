// HTTP routes of deployment rules (project rules and the environment's rule).
import type { AppContext } from '../../context.ts';
import type { App } from '../../http/app-type.ts';
import { pageRequest } from '../../http/pagination.ts';
import { NoContent, PageQuery, idParams } from '../../http/schemas.ts';
import {
  EnvironmentDeploymentRule, EnvironmentDeploymentRuleRequest, PriorityOrderRequest, ProjectDeploymentRule,
  ProjectDeploymentRuleList, ProjectDeploymentRuleRequest,
} from './deployment-rules.schemas.ts';

const tags = ['Deployment rules'];
const RuleParams = idParams('projectId', 'deploymentRuleId');

export function deploymentRuleRoutes(app: App, ctx: AppContext): void {
  const svc = ctx.services.deploymentRules;

  app.get('/project/:projectId/deploymentRule', {
    schema: { tags, operationId: 'listProjectDeploymentRules', params: idParams('projectId'), querystring: PageQuery, response: { 200: ProjectDeploymentRuleList } },
  }, async (req) => svc.list(req.principal, req.params.projectId, pageRequest(req.query, 'configuration')));

  app.post('/project/:projectId/deploymentRule', {
    schema: { tags, operationId: 'createDeploymentRule', summary: 'Create a project deployment rule (appended last in priority order)', params: idParams('projectId'), body: ProjectDeploymentRuleRequest, response: { 201: ProjectDeploymentRule } },
  }, async (req, reply) => reply.code(201).send(await svc.create(req.principal, req.params.projectId, req.body)));

  app.put('/project/:projectId/deploymentRule/order', {
    schema: { tags, operationId: 'updateDeploymentRulesPriorityOrder', summary: 'Set the priority order of every rule of the project', params: idParams('projectId'), body: PriorityOrderRequest, response: { 200: ProjectDeploymentRuleList } },
  }, async (req) => svc.reorder(req.principal, req.params.projectId, req.body.project_deployment_rule_ids_in_order));

  app.get('/project/:projectId/deploymentRule/:deploymentRuleId', {
    schema: { tags, operationId: 'getProjectDeploymentRule', params: RuleParams, response: { 200: ProjectDeploymentRule } },
  }, async (req) => svc.get(req.principal, req.params.projectId, req.params.deploymentRuleId));

  app.put('/project/:projectId/deploymentRule/:deploymentRuleId', {
    schema: { tags, operationId: 'editProjectDeployemtnRule', params: RuleParams, body: ProjectDeploymentRuleRequest, response: { 200: ProjectDeploymentRule } },
  }, async (req) => svc.update(req.principal, req.params.projectId, req.params.deploymentRuleId, req.body));

  app.delete('/project/:projectId/deploymentRule/:deploymentRuleId', {
    schema: { tags, operationId: 'deleteProjectDeploymentRule', params: RuleParams, response: NoContent },
  }, async (req, reply) => {
    await svc.remove(req.principal, req.params.projectId, req.params.deploymentRuleId);
    return reply.code(204).send(null);
  });

  app.get('/environment/:environmentId/deploymentRule', {
    schema: { tags, operationId: 'getEnvironmentDeploymentRule', params: idParams('environmentId'), response: { 200: EnvironmentDeploymentRule } },
  }, async (req) => svc.getForEnvironment(req.principal, req.params.environmentId));

  app.put('/environment/:environmentId/deploymentRule/:deploymentRuleId', {
    schema: { tags, operationId: 'editEnvironmentDeploymentRule', params: idParams('environmentId', 'deploymentRuleId'), body: EnvironmentDeploymentRuleRequest, response: { 200: EnvironmentDeploymentRule } },
  }, async (req) => svc.updateForEnvironment(req.principal, req.params.environmentId, req.params.deploymentRuleId, req.body));
}
