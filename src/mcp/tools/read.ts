// The reading tools of berth's MCP server: the hierarchy, a service's settings and status, its
// deployments and logs, an environment's status, workflow runs, the audit log. Each resolves the
// words it is given, then calls the service the REST route calls (authorization is there).
import { Type } from 'typebox';
import type { PageRequest } from '../../http/pagination.ts';
import { serviceLinks } from '../../modules/services/links.ts';
import { findEnvironment, findOrganization, findProject, findService } from '../../modules/scope/names.ts';
import { checkRunScope } from '../../modules/scope/scope.service.ts';
import { badRequest } from '../../lib/errors.ts';
import { HANDLERS, labelOf, reachable } from '../places.ts';
import { EnvironmentPlaceInput, OrganizationWord, ProjectWord, ServicePlaceInput, tool, type ToolCall } from '../tool.ts';

/** the service types with public URLs (the REST API's /link routes) */
const LINKED = new Set(['APPLICATION', 'CONTAINER']);
const first = (n: number): PageRequest => ({ page: 1, pageSize: n, limit: n, offset: 0 });
const Limit = (max: number, dflt: number, what: string) => Type.Optional(Type.Integer({ minimum: 1, maximum: max, default: dflt, description: `how many ${what} (at most ${max}, default ${dflt})` }));

async function serviceSettings(call: ToolCall, id: string, type: string): Promise<unknown> {
  const { services, workflows } = call.ctx.services;
  if (type === 'AGENTIC_WORKFLOW') return workflows.get(call.principal, id);
  const handler = HANDLERS[type];
  if (!handler) throw badRequest(`berth's MCP server does not read ${type} services`);
  return services.get(call.principal, id, handler);
}

export const readTools = [
  tool({
    name: 'list_organizations', title: 'List organizations', action: 'read', reach: 'organization',
    description: 'The organizations you are a member of (an API token: its own), with their ids. Start here when you do not know where a service lives.',
    input: Type.Object({}),
    run: async ({ ctx, principal }) => (await ctx.services.organizations.list(principal, first(100))).results
      .map((o) => ({ id: o.id, name: o.name, description: o.description })),
  }),
  tool({
    name: 'list_projects', title: 'List projects', action: 'read', reach: 'organization',
    description: 'The projects of an organization (a project groups environments such as production and staging).',
    input: Type.Object({ organization: OrganizationWord }),
    run: async ({ ctx, principal }, a) => {
      const org = await findOrganization(ctx.db, principal, a.organization);
      return (await ctx.services.projects.list(principal, org.id, first(500))).results.map((p) => ({ id: p.id, name: p.name, description: p.description }));
    },
  }),
  tool({
    name: 'list_environments', title: 'List environments', action: 'read', reach: 'organization',
    description: 'The environments of a project (production, staging, previews…), with their mode and cluster.',
    input: Type.Object({ project: Type.String({ minLength: 1, description: 'the project: its name (case-insensitive) or its id' }), organization: OrganizationWord }),
    run: async ({ ctx, principal }, a) => {
      const project = await findProject(ctx.db, principal, { project: a.project, organization: a.organization });
      return (await ctx.services.environments.list(principal, project.project_id, first(500))).results
        .map((e) => ({ id: e.id, name: e.name, mode: e.mode, cluster_id: e.cluster_id }));
    },
  }),
  tool({
    name: 'list_services', title: 'List services of an environment', action: 'read', reach: 'environment',
    description: 'Every service of an environment (applications, containers, databases, jobs, agentic workflows) with its state (RUNNING, STOPPED, DEPLOYMENT_ERROR…) and whether it is up to date with its settings.',
    input: Type.Object(EnvironmentPlaceInput),
    run: async ({ ctx, principal }, a) => {
      const env = await findEnvironment(ctx.db, principal, a);
      const items = (await ctx.services.services.listEnvironmentServices(principal, env.environment_id, first(1000))).results;
      return {
        environment: { id: env.environment_id, name: env.environment_name, project: env.project_name },
        services: reachable(principal, items).map((s) => ({
          id: s.id, name: s.name, type: s.service_type, state: s.state, deployment_status: s.service_deployment_status, last_deployment_date: s.last_deployment_date,
        })),
      };
    },
  }),
  tool({
    name: 'get_service', title: 'Read a service', action: 'read', reach: 'environment',
    description: 'A service\'s settings as the API returns them (source, ports, resources, replicas…; secret values never), its current status and its public URLs.',
    input: Type.Object(ServicePlaceInput),
    run: async (call, a) => {
      const s = await findService(call.ctx.db, call.principal, a);
      const label = labelOf(s.service_type);
      const { ctx, principal } = call;
      const [settings, status, links] = await Promise.all([
        serviceSettings(call, s.service_id, s.service_type),
        ctx.services.services.status(principal, s.service_id, s.service_type, label),
        LINKED.has(s.service_type)
          ? serviceLinks({ db: ctx.db, config: ctx.config, services: ctx.services.services, engine: ctx.engine, defaultHostsHttps: () => ctx.services.domains.defaultHostsHttps() }, principal, s.service_id, s.service_type as 'APPLICATION' | 'CONTAINER', label)
          : null,
      ]);
      return {
        settings, status, place: { organization: s.organization_name, project: s.project_name, environment: s.environment_name },
        public_urls: links?.results.map((l) => ({ url: l.url, internal_port: l.internal_port, is_default: l.is_default })) ?? [],
        ...(links?.public_urls_unavailable_reason ? { public_urls_unavailable_reason: links.public_urls_unavailable_reason } : {}),
      };
    },
  }),
  tool({
    name: 'list_deployments', title: 'Deployment history of a service', action: 'read', reach: 'environment',
    description: 'A service\'s deployments, newest first: action (DEPLOY, REDEPLOY, STOP, RESTART), status, git commit or image tag, who triggered it and when. Use a deployment id with get_deployment_log or rollback_service.',
    input: Type.Object({ ...ServicePlaceInput, limit: Limit(100, 10, 'deployments') }),
    run: async ({ ctx, principal }, a) => {
      const s = await findService(ctx.db, principal, a);
      return (await ctx.services.deployments.history(principal, s.service_id, s.service_type, labelOf(s.service_type), first(a.limit ?? 10))).results;
    },
  }),
  tool({
    name: 'get_deployment_log', title: 'Log of a deployment', action: 'read', reach: 'environment',
    description: 'The build and deployment log lines of one deployment (its last lines by default). Read this when a deployment failed.',
    input: Type.Object({ deployment_id: Type.String({ format: 'uuid', description: 'the deployment\'s id (from list_deployments)' }), tail: Limit(2000, 200, 'last lines') }),
    run: async ({ ctx, principal }, a) => {
      const d = await ctx.services.deployments.get(principal, a.deployment_id);
      checkRunScope(principal, d.environment_id, d.service_id);
      const tail = a.tail ?? 200;
      const logs = await ctx.services.deployments.deploymentLogs(principal, a.deployment_id, first(tail), tail);
      return { deployment: { id: d.id, status: d.status, action: d.action, service: d.service_name }, lines: logs.results.map((l) => `${l.created_at} ${l.message}`) };
    },
  }),
  tool({
    name: 'get_service_logs', title: 'Recent log lines of a service', action: 'read', reach: 'environment',
    description: 'What a service\'s containers printed most recently, with the deployment steps mixed in, oldest first. Bounded: `tail` lines at most, optionally only lines since a time.',
    input: Type.Object({
      ...ServicePlaceInput, tail: Limit(2000, 100, 'last lines'),
      since: Type.Optional(Type.String({ format: 'date-time', description: 'only lines written from this time on (ISO 8601)' })),
    }),
    run: async ({ ctx, principal }, a) => {
      const s = await findService(ctx.db, principal, a);
      const logs = await ctx.services.deployments.serviceLogs(principal, s.service_id, s.service_type, labelOf(s.service_type), a.tail ?? 100, a.since ? new Date(a.since) : undefined);
      return { service: s.service_name, lines: logs.results.map((l) => `${l.created_at} ${l.message}`) };
    },
  }),
  tool({
    name: 'get_environment_status', title: 'Status of an environment', action: 'read', reach: 'environment',
    description: 'An environment\'s overall state and last deployment, and the state of each of its services.',
    input: Type.Object(EnvironmentPlaceInput),
    run: async ({ ctx, principal }, a) => {
      const env = await findEnvironment(ctx.db, principal, a);
      const all = await ctx.services.deployments.environmentStatuses(principal, env.environment_id);
      const names = new Map((await ctx.services.services.listEnvironmentServices(principal, env.environment_id, first(1000))).results.map((s) => [s.id, s.name]));
      const groups = Object.fromEntries(Object.entries(all).filter(([k]) => k !== 'environment').map(([k, v]) => [k,
        reachable(principal, v as Array<{ id: string }>).map((s) => ({ name: names.get(s.id) ?? null, ...s }))]));
      return { environment: { name: env.environment_name, ...all.environment }, ...groups };
    },
  }),
  tool({
    name: 'list_workflow_runs', title: 'Runs of an agentic workflow', action: 'read', reach: 'environment',
    description: 'An agentic workflow\'s runs, newest first: trigger, status, the agent\'s final result, turns, tokens and cost.',
    input: Type.Object({ workflow: Type.String({ minLength: 1, description: 'the agentic workflow: its name (case-insensitive) or its id' }),
      environment: ServicePlaceInput.environment, project: ProjectWord, organization: OrganizationWord, limit: Limit(100, 10, 'runs') }),
    run: async ({ ctx, principal }, a) => {
      const s = await findService(ctx.db, principal, { ...a, service: a.workflow });
      if (s.service_type !== 'AGENTIC_WORKFLOW') throw badRequest(`${s.service_name} is a ${s.service_type}, not an agentic workflow`);
      return (await ctx.services.workflowRuns.list(principal, s.service_id, first(a.limit ?? 10))).results;
    },
  }),
  tool({
    name: 'get_audit_log', title: 'Audit log of an organization', action: 'read', reach: 'organization',
    description: 'Who changed or deployed what in an organization, newest first (needs the ADMIN role, as in the API).',
    input: Type.Object({
      organization: OrganizationWord, limit: Limit(100, 20, 'events'),
      event_type: Type.Optional(Type.String({ description: 'CREATE, UPDATE, DELETE, TRIGGER_DEPLOY, TRIGGER_REDEPLOY, TRIGGER_STOP, …' })),
    }),
    run: async ({ ctx, principal }, a) => {
      const org = await findOrganization(ctx.db, principal, a.organization);
      return (await ctx.services.audit.list(principal, org.id, { pageSize: a.limit ?? 20, ...(a.event_type ? { eventType: a.event_type } : {}) })).events;
    },
  }),
];
