// Every module's routes, registered at the root (/api/v1 reaches them by a URL rewrite, src/http/app.ts).
import type { AppContext } from '../context.ts';
import type { App } from '../http/app.ts';
import { memberRoutes } from './members/members.routes.ts';
import { organizationRoutes } from './organizations/organizations.routes.ts';
import { tokenRoutes } from './tokens/tokens.routes.ts';
import { servicesModuleRoutes } from './services/routes.ts';
import { clusterRoutes } from './clusters/clusters.routes.ts';
import { registryRoutes } from './registries/registries.routes.ts';
import { projectRoutes } from './projects/projects.routes.ts';
import { environmentRoutes } from './environments/environments.routes.ts';
import { deploymentRuleRoutes } from './deployment-rules/deployment-rules.routes.ts';
import { parentVariableRoutes } from './variables/parent.routes.ts';
import { variableRoutes } from './variables/variable.routes.ts';
import { llmProviderRoutes } from './llm-providers/llm-providers.routes.ts';
import { mcpServerRoutes } from './mcp-servers/mcp-servers.routes.ts';
import { workflowRoutes } from './workflows/workflows.routes.ts';
import { workflowRunRoutes } from './workflows/runs.routes.ts';
import { workflowOutputRoutes } from './workflows/outputs.routes.ts';
import { deploymentRoutes } from './deployments/deployments.routes.ts';
import { webhookRoutes } from './webhooks/webhooks.routes.ts';
import { jobRunRoutes } from './job-runs/job-runs.routes.ts';
import { auditRoutes } from './audit/audit.routes.ts';
import { streamRoutes } from './streams/streams.routes.ts';

export function registerModuleRoutes(app: App, ctx: AppContext): void {
  organizationRoutes(app, ctx);
  memberRoutes(app, ctx);
  tokenRoutes(app, ctx);
  servicesModuleRoutes(app, ctx);
  clusterRoutes(app, ctx);
  registryRoutes(app, ctx);
  projectRoutes(app, ctx);
  environmentRoutes(app, ctx);
  deploymentRuleRoutes(app, ctx);
  parentVariableRoutes(app, ctx);
  variableRoutes(app, ctx);
  llmProviderRoutes(app, ctx);
  mcpServerRoutes(app, ctx);
  workflowRoutes(app, ctx);
  workflowRunRoutes(app, ctx);
  workflowOutputRoutes(app, ctx);
  deploymentRoutes(app, ctx);
  webhookRoutes(app, ctx);
  jobRunRoutes(app, ctx);
  auditRoutes(app, ctx);
  streamRoutes(app, ctx);
}
