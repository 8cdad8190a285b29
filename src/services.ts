// Builds every module's service over the shared parts. Services depend on each other only
// through what is passed here, so the wiring of the whole system is readable in one place.
import type { ContextParts } from './context.ts';
import { createAccessService, type AccessService } from './modules/access/access.service.ts';
import { createIdentityService, type IdentityService } from './modules/identity/identity.service.ts';
import { createMembersService, type MembersService } from './modules/members/members.service.ts';
import { createOrganizationsService, type OrganizationsService } from './modules/organizations/organizations.service.ts';
import { createScopeService, type ScopeService } from './modules/scope/scope.service.ts';
import type { AppContext } from './context.ts';
import { createClustersService, type ClustersService } from './modules/clusters/clusters.service.ts';
import { createRegistriesService, type RegistriesService } from './modules/registries/registries.service.ts';
import { createGitTokensService, type GitTokensService } from './modules/git-tokens/git-tokens.service.ts';
import { createProjectsService, type ProjectsService } from './modules/projects/projects.service.ts';
import { createEnvironmentsService, type EnvironmentsService } from './modules/environments/environments.service.ts';
import { createDeploymentRulesService, type DeploymentRulesService } from './modules/deployment-rules/deployment-rules.service.ts';
import { createTokensService, type TokensService } from './modules/tokens/tokens.service.ts';
import { createVariablesService, type VariablesService } from './modules/variables/variables.service.ts';
import { createDeploymentsService, type DeploymentsService } from './modules/deployments/deployments.service.ts';
import { createWebhooksService, type WebhooksService } from './modules/webhooks/webhooks.service.ts';
import { createLlmProvidersService, type LlmProvidersService } from './modules/llm-providers/llm-providers.service.ts';
import { createMcpServersService, type McpServersService } from './modules/mcp-servers/mcp-servers.service.ts';
import { createWorkflowsService, type WorkflowsService } from './modules/workflows/workflows.service.ts';
import { createWorkflowRunsService, type WorkflowRunsService } from './modules/workflows/runs.service.ts';
import { createWorkflowOutputsService, type WorkflowOutputsService } from './modules/workflows/outputs.service.ts';
import { createServicesService, type ServicesService } from './modules/services/services.service.ts';
import { createServiceGroupsService, type ServiceGroupsService } from './modules/services/groups/groups.service.ts';
import { createJobRunsService, type JobRunsService } from './modules/job-runs/job-runs.service.ts';
import { createAuditService, type AuditService } from './modules/audit/audit.service.ts';
import { createGitPushService, type GitPushService } from './modules/git-push/git-push.service.ts';
import { createPreviewsService, type PreviewsService } from './modules/previews/previews.service.ts';

export interface Services {
  identity: IdentityService;
  access: AccessService;
  organizations: OrganizationsService;
  members: MembersService;
  tokens: TokensService;
  scope: ScopeService;
  clusters: ClustersService;
  registries: RegistriesService;
  gitTokens: GitTokensService;
  projects: ProjectsService;
  environments: EnvironmentsService;
  deploymentRules: DeploymentRulesService;
  variables: VariablesService;
  deployments: DeploymentsService;
  webhooks: WebhooksService;
  llmProviders: LlmProvidersService;
  mcpServers: McpServersService;
  workflows: WorkflowsService;
  workflowRuns: WorkflowRunsService;
  workflowOutputs: WorkflowOutputsService;
  services: ServicesService;
  serviceGroups: ServiceGroupsService;
  jobRuns: JobRunsService;
  audit: AuditService;
  gitPush: GitPushService;
  previews: PreviewsService;
}

export function createServices(parts: ContextParts): Services {
  const { db, config } = parts;
  const identity = createIdentityService(db, config);
  const access = createAccessService(db);
  const organizations = createOrganizationsService({ db, access, identity });
  const members = createMembersService({ db, access, organizations, publicUrl: config.publicUrl });
  const tokens = createTokensService({ db, access, identity, organizations });
  const scope = createScopeService({ db, organizations });
  // hooks (clone, environment removal) receive the whole context; it exists once this returns
  let all: Services | undefined;
  const appContext = (): AppContext => ({ ...parts, engine: parts.engine!, services: all! });
  const clusters = createClustersService({ db, organizations, engine: { nodes: () => parts.engine?.nodes?.() ?? Promise.resolve(undefined) } });
  const registries = createRegistriesService({ db, organizations, sealer: parts.sealer });
  const gitTokens = createGitTokensService({ db, organizations, sealer: parts.sealer });
  const projects = createProjectsService({ db, organizations, appContext });
  const environments = createEnvironmentsService({ db, scope, projects, sealer: parts.sealer, appContext });
  const deploymentRules = createDeploymentRulesService({ db, projects, scope });
  const variables = createVariablesService({ db, sealer: parts.sealer, scope, organizations });
  const deployments = createDeploymentsService({ db, queue: parts.queue, scope });
  const webhooks = createWebhooksService({ db, sealer: parts.sealer, queue: parts.queue, config, organizations });
  const llmProviders = createLlmProvidersService({ db, sealer: parts.sealer, organizations });
  const mcpServers = createMcpServersService({ db, sealer: parts.sealer, organizations });
  const workflows = createWorkflowsService({ db, sealer: parts.sealer, publicUrl: config.publicUrl, scope, llmProviders, mcpServers });
  const workflowRuns = createWorkflowRunsService({ db, scope, workflows, deployments, queue: parts.queue, environments, sealer: parts.sealer });
  const workflowOutputs = createWorkflowOutputsService({ db, scope, sealer: parts.sealer, queue: parts.queue, workflows });
  const services = createServicesService({ db, sealer: parts.sealer, scope, config, appContext });
  const serviceGroups = createServiceGroupsService({ db, organizations });
  const jobRuns = createJobRunsService({ db, scope });
  const audit = createAuditService({ db, organizations });
  const previews = createPreviewsService({ db, scope, environments, deployments, appContext, config });
  const gitPush = createGitPushService({ db, sealer: parts.sealer, publicUrl: config.publicUrl, pollIntervalSeconds: config.gitPollIntervalSeconds, organizations, deployments, previews });
  all = { audit, gitPush, previews, jobRuns, services, serviceGroups, identity, access, organizations, members, tokens, scope, variables, deployments, webhooks, llmProviders, mcpServers, workflows, workflowRuns, workflowOutputs, clusters, registries, gitTokens, projects, environments, deploymentRules };
  return all;
}
