// What exists, read through the owning modules' services into the document's shapes: a project's
// environments with their rule, variables, secrets (fingerprints only) and services (each API
// response fitted to its entry schema, ids turned into names). The plan compares a document with
// it; export writes it out (secrets as `secret:KEY` references, nulls left out).
import type { PageRequest } from '../../http/pagination.ts';
import type { Principal } from '../access/principal.ts';
import type { ClustersService } from '../clusters/clusters.service.ts';
import type { DeploymentRulesService } from '../deployment-rules/deployment-rules.service.ts';
import type { DomainsService } from '../domains/domains.service.ts';
import type { Environment } from '../environments/environments.schemas.ts';
import type { EnvironmentsService } from '../environments/environments.service.ts';
import type { LlmProvidersService } from '../llm-providers/llm-providers.service.ts';
import type { McpServersService } from '../mcp-servers/mcp-servers.service.ts';
import type { Project } from '../projects/projects.schemas.ts';
import type { ProjectsService } from '../projects/projects.service.ts';
import type { RegistriesService } from '../registries/registries.service.ts';
import { defaultAdvancedSettings } from '../services/advanced-settings/index.ts';
import { applicationHandler } from '../services/applications/application.handler.ts';
import { containerHandler } from '../services/containers/container.handler.ts';
import { databaseHandler } from '../services/databases/database.handler.ts';
import { jobHandler } from '../services/jobs/job.handler.ts';
import { sameJson, type ServicesService, type ServiceTypeHandler } from '../services/services.service.ts';
import type { VariablesService } from '../variables/variables.service.ts';
import type { WorkflowsService } from '../workflows/workflows.service.ts';
import type { DeploymentsService } from '../deployments/deployments.service.ts';
import type { Reference } from './manifests.repo.ts';
import { SERVICE_ENTRIES, SERVICE_KINDS, type DatabaseReference, type VariableValue, type EnvironmentDoc, type ManifestDoc, type ServiceEntry, type ServiceKind } from './manifest.schemas.ts';
import { fingerprint, type CurrentEnvironment, type CurrentService, type CurrentState } from './manifests.rules.ts';

/** the services an apply, a plan and an export use (in an apply, each bound to its one transaction) */
export interface ManifestServices {
  projects: ProjectsService; environments: EnvironmentsService; deploymentRules: DeploymentRulesService; variables: VariablesService;
  services: ServicesService; workflows: WorkflowsService; domains: DomainsService; deployments: DeploymentsService;
  clusters: ClustersService; registries: RegistriesService; llmProviders: LlmProvidersService; mcpServers: McpServersService;
}

export const ALL: PageRequest = { page: 1, pageSize: 0, limit: null, offset: 0, name: null };

export const TYPE_OF: Record<ServiceKind, string> = { applications: 'APPLICATION', containers: 'CONTAINER', databases: 'DATABASE', jobs: 'JOB', workflows: 'AGENTIC_WORKFLOW' };
export const LABEL_OF: Record<ServiceKind, string> = { applications: 'Application', containers: 'Container', databases: 'Database', jobs: 'Job', workflows: 'Agentic workflow' };
const KIND_OF: Record<string, ServiceKind> = Object.fromEntries(SERVICE_KINDS.map((k) => [TYPE_OF[k], k]));
export const HANDLERS: Readonly<Record<Exclude<ServiceKind, 'workflows'>, ServiceTypeHandler<any, any, unknown>>> = {
  applications: applicationHandler, containers: containerHandler, databases: databaseHandler, jobs: jobHandler,
};
const SETTINGS_KIND = { applications: 'application', containers: 'container', jobs: 'job' } as const;

/** `value` cut to what `schema` (a plain JSON Schema) describes: members it does not have are left out */
export function fit(schema: unknown, value: unknown): unknown {
  const s = schema as { anyOf?: unknown[]; type?: string; properties?: Record<string, unknown>; patternProperties?: Record<string, unknown>; items?: unknown };
  if (value === null || value === undefined) return value;
  if (s.anyOf) {
    const branch = s.anyOf.find((b) => {
      const t = (b as { type?: string }).type;
      return t === 'object' ? typeof value === 'object' && !Array.isArray(value) : t === 'array' ? Array.isArray(value) : t !== 'null';
    });
    return branch ? fit(branch, value) : value;
  }
  if (s.type === 'array' && Array.isArray(value)) return value.map((v) => fit(s.items, v));
  if (s.type === 'object' && typeof value === 'object' && !Array.isArray(value)) {
    const v = value as Record<string, unknown>;
    if (s.properties) {
      const out: Record<string, unknown> = {};
      for (const [k, sub] of Object.entries(s.properties)) if (v[k] !== undefined) out[k] = fit(sub, v[k]);
      return out;
    }
    const item = s.patternProperties ? Object.values(s.patternProperties)[0] : undefined;
    return item ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fit(item, x)])) : v;
  }
  return value;
}

/** the project's state; `project` null: none yet (an apply creates it) */
export async function readState(s: ManifestServices, p: Principal, project: Project | null): Promise<CurrentState> {
  if (!project) return { project: null, environments: [] };
  const environments = (await s.environments.list(p, project.id, ALL)).results.filter((e) => e.mode !== 'PREVIEW' && !e.expires_at);
  const orgId = project.organization.id;
  const names = await refNames(s, p, orgId);
  const out: CurrentEnvironment[] = [];
  for (const env of environments) out.push(await readEnvironment(s, p, env, names));
  return { project: { id: project.id, name: project.name, description: project.description }, environments: out };
}

interface RefNames { providers: Map<string, string>; connectors: Map<string, string> }

async function refNames(s: ManifestServices, p: Principal, orgId: string): Promise<RefNames> {
  const providers = new Map((await s.llmProviders.list(p, orgId, ALL)).results.map((x) => [x.id, x.name]));
  const connectors = new Map((await s.mcpServers.list(p, orgId, ALL)).results.map((x) => [x.id, x.name]));
  return { providers, connectors };
}

const hhmm = (t: unknown) => (typeof t === 'string' && /T(\d\d:\d\d)/.test(t) ? /T(\d\d:\d\d)/.exec(t)![1] : t);

async function readEnvironment(s: ManifestServices, p: Principal, env: Environment, names: RefNames): Promise<CurrentEnvironment> {
  const rule = await s.deploymentRules.getForEnvironment(p, env.id);
  const listed = (await s.services.listEnvironmentServices(p, env.id, ALL)).results;
  const serviceNames = new Map(listed.map((x) => [x.id, x.name]));
  const services: CurrentService[] = [];
  for (const item of listed) {
    const kind = KIND_OF[item.service_type];
    if (!kind) continue; // HELM, TERRAFORM: not part of the document
    services.push(await readService(s, p, kind, item.id, serviceNames, names));
  }
  const own = await ownVariables(s, p, 'ENVIRONMENT', env.id);
  return {
    id: env.id, name: env.name, mode: env.mode, cluster: env.cluster_name, auto_preview: env.auto_preview,
    rule: {
      id: rule.id,
      fields: { timezone: rule.timezone, start_time: hhmm(rule.start_time), stop_time: hhmm(rule.stop_time), weekdays: rule.weekdays, auto_stop: rule.auto_stop, auto_preview: rule.auto_preview, on_demand_preview: rule.on_demand_preview },
    },
    ...own, services: services.sort((a, b) => a.name.localeCompare(b.name)),
  };
}

async function ownVariables(s: ManifestServices, p: Principal, scope: string, parentId: string) {
  const rows = (await s.variables.list(p, scope, parentId, 'any', ALL)).results;
  const variables: CurrentEnvironment['variables'] = {};
  for (const r of rows) if (r.parent_id === parentId && !r.is_secret && r.variable_type === 'VALUE') variables[r.key] = { id: r.id, value: r.value ?? '' };
  const secrets: CurrentEnvironment['secrets'] = {};
  for (const r of await s.variables.secretValues([parentId])) if (r.parent_id === parentId) secrets[r.key] = { id: r.id, fingerprint: fingerprint(r.value) };
  return { variables, secrets };
}

async function readService(s: ManifestServices, p: Principal, kind: ServiceKind, id: string, serviceNames: Map<string, string>, names: RefNames): Promise<CurrentService> {
  const response = (kind === 'workflows' ? await s.workflows.get(p, id) : await s.services.get(p, id, HANDLERS[kind])) as unknown as Record<string, any>;
  const entry = fit(SERVICE_ENTRIES[kind], response) as Record<string, any>;
  if (kind === 'containers') entry.registry = response.registry?.name ?? null;
  if (kind === 'jobs' && response.source?.image) entry.source.image.registry = response.source.image.registry?.name ?? null;
  if (kind === 'workflows') {
    if (entry.model) entry.model = { ...entry.model, ...(response.model?.llm_provider_id ? { llm_provider: names.providers.get(response.model.llm_provider_id) ?? response.model.llm_provider_id } : {}) };
    entry.context_services = (response.context_service_ids as string[]).map((x) => serviceNames.get(x) ?? x);
    entry.mcp_connectors = (response.mcp_servers as Array<{ id: string; required: boolean }>).map((m) => ({ name: names.connectors.get(m.id) ?? m.id, required: m.required }));
  }
  const scope = kind === 'databases' ? null : TYPE_OF[kind];
  const own = scope ? await ownVariables(s, p, scope, id) : { variables: {}, secrets: {} };
  let advanced: Record<string, unknown> | null = null;
  if (kind === 'applications' || kind === 'containers' || kind === 'jobs') {
    const complete = await s.services.getAdvancedSettings(p, id, TYPE_OF[kind], LABEL_OF[kind]) as Record<string, unknown>;
    const defaults = defaultAdvancedSettings(SETTINGS_KIND[kind]) as Record<string, unknown>;
    advanced = Object.fromEntries(Object.entries(complete).filter(([k, v]) => !sameJson(v, defaults[k])));
  }
  const domains = kind === 'applications' || kind === 'containers'
    ? (await s.domains.list(p, TYPE_OF[kind] as 'APPLICATION' | 'CONTAINER', id)).results.map((d) => ({ id: d.id, domain: d.domain, generate_certificate: d.generate_certificate, use_cdn: d.use_cdn }))
    : null;
  return { id, kind, name: response.name as string, entry, ...own, advanced, domains };
}

/** the document of these environments of the project (export): every member as it is, nulls left out, secrets as references */
export function stateToDocument(state: CurrentState, environmentIds?: readonly string[], references: ReadonlyMap<string, Reference> = new Map()): ManifestDoc {
  const environments: Record<string, EnvironmentDoc> = {};
  for (const env of state.environments) {
    if (environmentIds && !environmentIds.includes(env.id)) continue;
    const databases = new Map(env.services.filter((x) => x.kind === 'databases').map((x) => [x.id, x.name]));
    const ownedToDoc = (o: Owned) => ownedOf(o, references, databases);
    const doc: EnvironmentDoc = { mode: env.mode as EnvironmentDoc['mode'], cluster: env.cluster };
    if (env.rule) doc.deployment_rule = { ...(env.rule.fields as NonNullable<EnvironmentDoc['deployment_rule']>) };
    Object.assign(doc, ownedToDoc(env));
    for (const kind of SERVICE_KINDS) {
      const of = env.services.filter((x) => x.kind === kind);
      if (of.length === 0) continue;
      doc[kind] = Object.fromEntries(of.map((svc) => {
        const entry = dropNulls(svc.entry) as ServiceEntry;
        Object.assign(entry, ownedToDoc(svc));
        if (svc.advanced && Object.keys(svc.advanced).length > 0) entry.advanced_settings = sortKeys(svc.advanced);
        if (svc.domains && svc.domains.length > 0) entry.custom_domains = svc.domains.map((d) => ({ domain: d.domain, generate_certificate: d.generate_certificate, use_cdn: d.use_cdn }));
        return [svc.name, entry];
      }));
    }
    environments[env.name] = doc;
  }
  return { version: 1, project: { name: state.project!.name, description: state.project!.description }, environments };
}

type Owned = { variables: Record<string, { id: string; value: string }>; secrets: Record<string, { id: string }> };

/** variables and secrets as the document writes them: a value set from a database's credentials as its reference (under variables, a secret one too) */
function ownedOf(o: Owned, references: ReadonlyMap<string, Reference>, databases: ReadonlyMap<string, string>) {
  const out: { variables?: Record<string, VariableValue>; secrets?: Record<string, { from: string }> } = {};
  const ref = (id: string): DatabaseReference | null => {
    const r = references.get(id);
    const name = r ? databases.get(r.database_id) : undefined;
    return r && name ? { from_database: { name, property: r.property } } : null;
  };
  const variables: Record<string, VariableValue> = {};
  const secrets: Record<string, { from: string }> = {};
  for (const [k, v] of Object.entries(o.variables)) variables[k] = ref(v.id) ?? v.value;
  for (const [k, v] of Object.entries(o.secrets)) {
    const r = ref(v.id);
    if (r) variables[k] = r; else secrets[k] = { from: `secret:${k}` };
  }
  if (Object.keys(variables).length) out.variables = sortKeys(variables) as Record<string, VariableValue>;
  if (Object.keys(secrets).length) out.secrets = sortKeys(secrets) as Record<string, { from: string }>;
  return out;
}

function sortKeys(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.keys(o).sort().map((k) => [k, o[k]]));
}

function dropNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(dropNulls);
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null && x !== undefined).map(([k, x]) => [k, dropNulls(x)]));
  }
  return v;
}
