// The composition root: builds every module's service over the platform, each with exactly what
// it needs, and wires what one module does when another acts (a clone, a removal, a settled
// deployment) as explicit calls here, so the whole system's wiring is readable in one place.
// Nothing registers itself at import time.
import type { Platform } from './platform.ts';
import type { Queryable } from './db/db.ts';
import { createAccessService, type AccessService } from './modules/access/access.service.ts';
import { createIdentityService, type IdentityService } from './modules/identity/identity.service.ts';
import { createMembersService, type MembersService } from './modules/members/members.service.ts';
import { createOrganizationsService, type OrganizationsService } from './modules/organizations/organizations.service.ts';
import { createScopeService, type ScopeService } from './modules/scope/scope.service.ts';
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
import { DEFAULT_RETRY_SETTINGS, type RetrySettings } from './modules/webhooks/webhooks.rules.ts';
import { createRunCredentialsService, type RunCredentialsService } from './modules/run-credentials/run-credentials.service.ts';
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
import { createProviderStatusService, type ProviderStatusService } from './modules/provider-status/provider-status.service.ts';
import { repositoryOfSpec, type RetrySchedule } from './modules/provider-status/provider-status.rules.ts';
import { defaultServiceUrl } from './modules/services/links.ts';
import { createStreamsService, type StreamsService } from './modules/streams/streams.service.ts';
import type { StreamPeriods } from './modules/streams/sse.ts';
import { createDomainsService, type DomainsService } from './modules/domains/domains.service.ts';
import { createNotificationsService, type NotificationsService } from './modules/notifications/notifications.service.ts';
import { createBackupParts, type BackupParts } from './modules/backups/compose.ts';
import { agentRunFailedIncident, agentRunIncidentKey, deploymentFailedIncident, deploymentIncidentKey } from './modules/notifications/notifications.incidents.ts';
import { settledEvent } from './modules/deployments/deployments.rules.ts';
import { createDomainLifecycle } from './modules/domains/lifecycle.ts';
import { createDomainDns } from './modules/domains/dns.ts';
import { createDeploymentRunner, type DeploymentRunner, type DeploymentWorkerSettings } from './modules/deployments/runner.ts';
import { uninstallOnRemoval } from './modules/deployments/uninstall-on-removal.ts';
import { reservePublicPortsForClone } from './modules/services/databases/public-access.ts';
import { copyVariables } from './modules/variables/clone.ts';
import { runWorkflowAgent } from './modules/workflows/agent-step.ts';
import { copyWorkflowsOnClone } from './modules/workflows/runs.lifecycle.ts';
import { createManifestsService, type ManifestsService } from './modules/manifests/manifests.service.ts';
import { joinTransaction } from './db/joined.ts';

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
  providerStatus: ProviderStatusService;
  deploymentRunner: DeploymentRunner;
  streams: StreamsService;
  domains: DomainsService;
  runCredentials: RunCredentialsService;
  notifications: NotificationsService;
  backups: BackupParts['backups'];
  backupStorage: BackupParts['backupStorage'];
  backupRunner: BackupParts['backupRunner'];
  backupLifecycle: BackupParts['backupLifecycle'];
  manifests: ManifestsService;
}

/** Periods and schedules a user never sets (no environment variable) that tests shorten for the
 * app they build: each goes to the one instance it tunes, never to module state (decision 0715). */
export interface Tuning {
  /** the retry schedule of webhook and workflow output deliveries */
  webhookRetries?: Partial<RetrySettings>;
  /** the deployment runner's stale period and recoveries */
  deploymentWorkers?: Partial<DeploymentWorkerSettings>;
  /** live streams' keep-alive and safety-poll periods */
  streams?: Partial<StreamPeriods>;
  /** the retry schedule of posts to git providers (statuses, pull request comments) */
  providerRetries?: Partial<RetrySchedule>;
}

export function createServices(platform: Platform, tuning: Tuning = {}): Services {
  const { db, config, sealer, queue } = platform;
  const runCredentials = createRunCredentialsService({ db });
  // identity, access and organizations reach tables of the tokens and members modules through
  // those modules' services, made below (each called only once a request is served)
  const identity = createIdentityService(db, config, { byHash: (hash) => tokens.byHash(hash), markUsed: (id) => tokens.markUsed(id) }, runCredentials);
  const access = createAccessService({ roleIn: (orgId, userId) => members.roleIn(orgId, userId), rolesOf: (userId) => members.rolesOf(userId) });
  const organizations = createOrganizationsService({
    db, access, identity,
    memberships: { addOwner: (tx, orgId, userId) => members.addOwner(tx, orgId, userId), makeOwner: (tx, orgId, userId) => members.makeOwner(tx, orgId, userId) },
  });
  const members = createMembersService({ db, access, organizations, publicUrl: config.publicUrl });
  const tokens = createTokensService({ db, access, identity, organizations });
  const scope = createScopeService({ db, organizations });
  // the services service is made below; the snapshot is taken only when a removal runs
  const uninstall = uninstallOnRemoval({ ...platform, services: { deployedRows: (tx, by, ids) => services.deployedRows(tx, by, ids) } });
  const clusters = createClustersService({ db, organizations, engine: { nodes: () => platform.engine.nodes?.() ?? Promise.resolve(undefined) } });
  const registries = createRegistriesService({ db, organizations, sealer });
  const gitTokens = createGitTokensService({ db, organizations, sealer });
  // projects and environments need each other: a project's deletion removes its environments
  const projects = createProjectsService({ db, organizations, prepareEnvironmentRemoval: (tx, orgId, ids) => environments.prepareRemoval(tx, orgId, ids) });
  // the environments service is made below (it takes this one); `auto_preview` is set only when a rule is edited
  const deploymentRules = createDeploymentRulesService({
    db, projects, scope, clusters, environments: { setAutoPreview: (tx, id, autoPreview) => environments.setAutoPreview(tx, id, autoPreview) },
  });
  const environments = createEnvironmentsService({
    db, scope, projects, sealer, clusters, deploymentRules,
    lockDeployments: (tx, ids) => deployments.lockEnvironments(tx, ids),
    copyService: (tx, serviceId, toEnvironmentId, secrets) => services.copyInto(tx, serviceId, toEnvironmentId, secrets),
    afterClone: async (tx, clone) => {
      await copyVariables(tx, sealer, clone);
      await copyWorkflowsOnClone(tx, clone);
      await reservePublicPortsForClone(tx, config, clone);
    },
    beforeRemoval: async (tx, removed) => {
      await workflowRuns.beforeEnvironmentsRemoved(tx, removed);
      await uninstall.environments(tx, removed);
      await previews.beforeEnvironmentsRemoved(tx, removed);
    },
  });
  const variables = createVariablesService({ db, sealer, scope, organizations, services: { markOutOfDate: (tx, level, id) => services.markOutOfDate(tx, level, id) } });
  // the services service is made below; a deployment moves its service's state columns through it
  const deployments = createDeploymentsService({
    db, queue, scope,
    services: {
      setState: (tx, id, state) => services.setState(tx, id, state),
      markDeployed: (tx, id, startedAt) => services.markDeployed(tx, id, startedAt),
      markUninstalled: (tx, id) => services.markUninstalled(tx, id),
    },
    // status on the provider: a push's or a preview's deployment is reported at each change
    // (a row and a task in this transaction; the post runs after it, through the queue)
    onRequested: async (tx, d) => {
      await providerStatus.onDeployment(tx, d);
      await workflowRuns.onDeploymentRequested(tx, d);
    },
    onStarted: (tx, d) => providerStatus.onDeployment(tx, d),
    onSettled: async (tx, d) => {
      await providerStatus.onDeployment(tx, d);
      await workflowRuns.onDeploymentSettled(tx, d);
      await jobRuns.onDeploymentSettled(tx, d);
      // notification channels: a failed deployment is its service's incident (one message until it
      // recovers), the next successful one resolves it; a workflow's deployments are its runs (below)
      if (d.service_type !== 'AGENTIC_WORKFLOW') {
        const settled = settledEvent(d.status);
        if (settled === 'DEPLOYMENT_FAILED') await notifications.raise(d.organization_id, deploymentFailedIncident(d), tx);
        else if (settled === 'DEPLOYMENT_SUCCEEDED') await notifications.resolve(d.organization_id, deploymentIncidentKey(d.service_id), tx);
      }
    },
  });
  const webhooks = createWebhooksService({ db, sealer, queue, config, organizations, retries: Object.freeze({ ...DEFAULT_RETRY_SETTINGS, ...tuning.webhookRetries }) });
  const notifications = createNotificationsService({ db, sealer, queue, config, organizations, logger: platform.logger });
  const llmProviders = createLlmProvidersService({ db, sealer, organizations, workflowsUsing: (tx, id) => workflows.countUsingProvider(tx, id) });
  const mcpServers = createMcpServersService({ db, sealer, organizations });
  const workflows = createWorkflowsService({ db, sealer, publicUrl: config.publicUrl, scope, llmProviders, mcpServers });
  // the service's default public URL (as GET /application/{id}/link lists it first), or null
  const serviceUrl = (serviceId: string) => defaultServiceUrl({ db, config, engine: platform.engine, services, defaultHostsHttps: () => domains.defaultHostsHttps() }, serviceId);
  const workflowRuns = createWorkflowRunsService({
    db, scope, workflows, deployments, queue, environments, sealer,
    // notification channels: a failed run is its workflow's incident, the next successful run resolves it
    onRunFinished: async (tx, run) => {
      if (run.status === 'FAILED') await notifications.raise(run.organizationId, agentRunFailedIncident(run), tx);
      else await notifications.resolve(run.organizationId, agentRunIncidentKey(run.workflowId), tx);
    },
    serviceUrl: (serviceId) => serviceUrl(serviceId),
  });
  const workflowOutputs = createWorkflowOutputsService({ db, scope, sealer, queue, workflows });
  const services = createServicesService({
    db, sealer, scope, config, engine: platform.engine, logger: platform.logger, beforeRemoval: (tx, ids) => uninstall.services(tx, ids),
  });
  const serviceGroups = createServiceGroupsService({ db, organizations });
  const jobRuns = createJobRunsService({ db, scope, deployments });
  const audit = createAuditService({ db, organizations });
  const previews = createPreviewsService({
    db, scope, environments, deployments, services, config,
    reportingOf: (ids) => providerStatus.reportingOf(ids),
    onClosed: (tx, preview) => providerStatus.onPreviewClosed(tx, preview),
  });
  const providerStatus = createProviderStatusService({
    db, sealer, queue, deployments, previews, retries: tuning.providerRetries,
    transport: { allowPrivate: config.webhookAllowPrivateTargets, timeoutMs: 10_000 },
    serviceFacts: async (serviceId) => {
      const row = await services.findRow(serviceId);
      return row ? { name: row.name, ...repositoryOfSpec(row.type, row.spec) } : null;
    },
    serviceUrl: (serviceId) => serviceUrl(serviceId),
    // a run per pull request's verdict, linked to its page in the console
    agentRun: async (runId) => {
      const run = await workflowRuns.verdictOf(runId);
      return run ? { ...run, url: `${config.publicUrl.replace(/\/+$/, '')}/ui/workflows/${run.workflowId}/runs/${runId}` } : null;
    },
  });
  const gitPush = createGitPushService({ db, sealer, publicUrl: config.publicUrl, pollIntervalSeconds: config.gitPollIntervalSeconds, organizations, deployments, previews });
  const deploymentRunner = createDeploymentRunner({
    ...platform, lifecycle: deployments.lifecycle, settings: tuning.deploymentWorkers,
    // an agentic workflow's APPLY is its agent's run, not the driver's apply
    applyByType: {
      AGENTIC_WORKFLOW: (target, log, signal, deployment) => runWorkflowAgent({ ...platform, services, llmProviders, mcpServers, runCredentials }, target, log, signal, deployment),
    },
  });
  // what a service's event is filtered by (webhooks' project and environment-type filters), and a line in its log:
  // custom domains and backups both tell of what happened to a service this way
  const eventScope = async (serviceId: string) => {
    const s = await scope.serviceScope(serviceId);
    return s ? { environmentMode: s.environmentMode, projectName: await projects.nameOf(s.projectId) } : null;
  };
  const serviceLog = (tx: Queryable, serviceId: string, message: string) => deployments.appendLog(tx, null, serviceId, 'RUNTIME', message);
  const streams = createStreamsService({ db, logger: platform.logger, deployments, scope, periods: tuning.streams });
  const domains = createDomainsService({
    db, config, queue, services, organizations,
    lifecycle: createDomainLifecycle({
      db, sealer, queue, config, logger: platform.logger, findService: (id) => services.findRow(id),
      dns: createDomainDns({ resolvers: config.https.dnsResolvers, publicAddresses: config.https.publicAddresses, ingressHost: config.ingressHost }),
      ingress: () => platform.engine.domainIngress,
      eventScope, serviceLog,
    }),
  });
  const backupParts = createBackupParts({
    db, sealer, queue, backupDir: config.backupDir, allowPrivateEndpoints: config.webhookAllowPrivateTargets, publicUrl: config.publicUrl,
    engine: platform.engine, services, deployments, organizations, notifier: notifications, logger: platform.logger,
    eventScope, serviceLog,
  });
  // an apply of berth.yaml (decision 0745) runs every write through the owning services, each bound
  // to its one transaction: a second set of services over that transaction, made per apply
  const manifestServices = (of: Services) => ({
    projects: of.projects, environments: of.environments, deploymentRules: of.deploymentRules, variables: of.variables, services: of.services,
    workflows: of.workflows, domains: of.domains, deployments: of.deployments, clusters: of.clusters, registries: of.registries,
    llmProviders: of.llmProviders, mcpServers: of.mcpServers,
  });
  const manifests = createManifestsService({
    db, sealer, organizations, scope,
    services: { projects, environments, deploymentRules, variables, services, workflows, domains, deployments, clusters, registries, llmProviders, mcpServers },
    transactional: (fn) => db.transaction((tx) => fn(tx, manifestServices(createServices({ ...platform, db: joinTransaction(db, tx) }, tuning)))),
  });
  return {
    ...backupParts, manifests,
    domains, streams, audit, gitPush, previews, providerStatus, jobRuns, services, serviceGroups, identity, access, organizations, members, tokens, scope, variables, deployments, webhooks,
    llmProviders, mcpServers, workflows, workflowRuns, workflowOutputs, clusters, registries, gitTokens, projects, environments, deploymentRules, deploymentRunner,
    runCredentials, notifications,
  };
}
