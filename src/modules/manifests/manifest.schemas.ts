// SCHEMA READY
// The `berth.yaml` document (decision 0745), built from the API's own request schemas: each
// service entry is its type's create request without `name` (the map key) and without the
// organization-specific ids (registries, LLM providers, MCP connectors, services are named
// instead), plus `variables`, `secrets` (references only), `advanced_settings` and
// `custom_domains`. Also the shapes of the apply/plan/export routes. After `SCHEMA READY`,
// changes are additive only (helper B's compose import and CLI build on it).
import { Type, type Static, type TSchema } from 'typebox';
import { ProjectRequest } from '../projects/projects.schemas.ts';
import { CreateEnvironmentRequest } from '../environments/environments.schemas.ts';
import { EnvironmentDeploymentRuleRequest } from '../deployment-rules/deployment-rules.schemas.ts';
import { ApplicationRequest } from '../services/applications/application.schemas.ts';
import { ContainerRequest } from '../services/containers/container.schemas.ts';
import { DatabaseRequest } from '../services/databases/database.schemas.ts';
import { JobRequest, SourceRequest } from '../services/jobs/job.schemas.ts';
import { AgenticWorkflowRequest } from '../workflows/workflows.schemas.ts';
import { CustomDomainRequest } from '../domains/domains.schemas.ts';
import {
  ApplicationAdvancedSettingsPatchSchema, ContainerAdvancedSettingsPatchSchema, JobAdvancedSettingsPatchSchema,
} from '../services/advanced-settings/index.ts';

/** ids that name organization-specific rows: never in a file (names are, where the file needs them) */
const ID_MEMBERS = ['id', 'registry_id', 'git_token_id', 'llm_provider_id', 'api_key', 'mcp_server_ids', 'mcp_servers', 'context_service_ids', 'annotations_groups', 'labels_groups'];

/** a deep copy of a request schema without the members above, at any depth (the API's schemas are plain JSON Schema) */
function withoutIds<T extends TSchema>(schema: T): TSchema {
  const walk = (s: unknown): unknown => {
    if (Array.isArray(s)) return s.map(walk);
    if (s === null || typeof s !== 'object') return s;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(s)) {
      if (k === 'properties' && v && typeof v === 'object') {
        out[k] = Object.fromEntries(Object.entries(v).filter(([p]) => !ID_MEMBERS.includes(p)).map(([p, x]) => [p, walk(x)]));
      } else if (k === 'required' && Array.isArray(v)) {
        out[k] = v.filter((p) => !ID_MEMBERS.includes(p as string));
      } else out[k] = walk(v);
    }
    return out;
  };
  return walk(schema) as TSchema;
}

/** the request's members minus some, plus others, closed (an unknown member is an error with its line) */
function entry(request: TSchema, drop: string[], add: Record<string, TSchema>, description: string): TSchema {
  const base = withoutIds(request) as unknown as { properties: Record<string, TSchema>; required?: string[] };
  const properties = Object.fromEntries(Object.entries(base.properties).filter(([k]) => !drop.includes(k)));
  const required = (base.required ?? []).filter((k) => !drop.includes(k) && k in properties);
  return { type: 'object', description, properties: { ...properties, ...add }, ...(required.length ? { required } : {}), additionalProperties: false } as unknown as TSchema;
}

const KEY_PATTERN = '^[A-Za-z][A-Za-z0-9_]*$';
const Name = Type.String({ minLength: 1, maxLength: 255, pattern: '\\S' });

/** a secret is never written in the file: `env:NAME` (a value the client sends, e.g. from its environment) or `secret:NAME` (an existing secret) */
export const SecretReference = Type.Object({
  from: Type.String({
    pattern: '^(env|secret):[A-Za-z_][A-Za-z0-9_]*$',
    description: 'env:NAME: the value the client supplies as secret_values.NAME (the CLI reads its environment variable NAME); '
      + 'secret:NAME: the value of the existing secret NAME of this service, its environment or its project (secret_values.NAME when there is none)',
  }),
}, { additionalProperties: false, description: 'a reference to a secret value, never the value' });
export type SecretReference = Static<typeof SecretReference>;

/** what a variable can take from a database's master credentials (0142); USER, PASSWORD and URL are stored as secrets */
const DATABASE_PROPERTIES = ['HOST', 'PORT', 'USER', 'PASSWORD', 'URL'] as const;
export type DatabaseProperty = typeof DATABASE_PROPERTIES[number];
export const SECRET_DATABASE_PROPERTIES: readonly DatabaseProperty[] = ['USER', 'PASSWORD', 'URL'];

/** a variable's value taken from a database of the same environment at apply time (Render's `fromDatabase`) */
export const DatabaseReference = Type.Object({
  from_database: Type.Object({
    name: Type.String({ minLength: 1, maxLength: 255, pattern: '\\S', description: 'a database service of the same environment (of this file, or existing)' }),
    property: Type.Union([Type.Literal('HOST'), Type.Literal('PORT'), Type.Literal('USER'), Type.Literal('PASSWORD'), Type.Literal('URL')], {
      description: 'HOST and PORT: its address on the environment\'s network (plain variables); USER, PASSWORD and URL (type://user:password@host:port/database): stored as secrets',
    }),
  }, { additionalProperties: false }),
}, { additionalProperties: false, description: 'a value from a database\'s master credentials, resolved at apply' });
export type DatabaseReference = Static<typeof DatabaseReference>;
/** a variable of the document: a literal, or a database reference */
export type VariableValue = string | DatabaseReference;

const Variables = Type.Record(Type.String({ pattern: KEY_PATTERN }), Type.Union([Type.String(), DatabaseReference]), {
  additionalProperties: false, description: 'plain variables: KEY: value, or KEY: { from_database: { name, property } }',
});
const Secrets = Type.Record(Type.String({ pattern: KEY_PATTERN }), SecretReference, {
  additionalProperties: false, description: 'secrets by reference only: KEY: { from: env:NAME } or { from: secret:NAME }; a literal value is refused',
});
const CustomDomains = Type.Array(CustomDomainRequest, { description: 'custom domains (the API\'s CustomDomainRequest)' });
const Owned = { variables: Type.Optional(Variables), secrets: Type.Optional(Secrets) };

const ApplicationEntry = entry(ApplicationRequest, ['name'], {
  ...Owned, advanced_settings: Type.Optional(ApplicationAdvancedSettingsPatchSchema), custom_domains: Type.Optional(CustomDomains),
}, 'an application: the API\'s ApplicationRequest without name (the key)');

const ContainerEntry = entry(ContainerRequest, ['name'], {
  registry: Type.String({ minLength: 1, description: 'the name of a container registry of the organization' }),
  ...Owned, advanced_settings: Type.Optional(ContainerAdvancedSettingsPatchSchema), custom_domains: Type.Optional(CustomDomains),
}, 'a container: the API\'s ContainerRequest without name (the key); the registry by name');
(ContainerEntry as unknown as { required: string[] }).required.push('registry');

const DatabaseEntry = entry(DatabaseRequest, ['name'], {}, 'a database: the API\'s DatabaseRequest without name (the key)');

const sourceImage = (SourceRequest.properties.image as unknown as { anyOf: TSchema[] }).anyOf[0]!;
const JobSource = entry(SourceRequest, ['image'], {
  image: Type.Optional(Type.Union([
    entry(sourceImage, [], { registry: Type.String({ minLength: 1, description: 'the name of a container registry of the organization' }) }, 'an image of a registry named by its name'),
    Type.Null(),
  ])),
}, 'exactly one of image, docker');
const JobEntry = entry(JobRequest, ['name', 'source'], {
  source: JobSource, ...Owned, advanced_settings: Type.Optional(JobAdvancedSettingsPatchSchema),
}, 'a job: the API\'s JobRequest without name (the key); an image source names its registry');
(JobEntry as unknown as { required: string[] }).required.push('source');

const modelRequest = (AgenticWorkflowRequest.properties.model as unknown as { anyOf: TSchema[] }).anyOf[0]!;
const WorkflowModel = entry(modelRequest, [], {
  llm_provider: Type.Optional(Type.String({ minLength: 1, description: 'the name of an LLM provider of the organization to take the credential from' })),
  api_key: Type.Optional(SecretReference),
}, 'the model: type and settings, the credential from an LLM provider (by name) or a secret reference');
const WorkflowEntry = entry(AgenticWorkflowRequest, ['name', 'model'], {
  model: Type.Optional(Type.Union([WorkflowModel, Type.Null()])),
  context_services: Type.Optional(Type.Array(Name, { description: 'services of the same environment given to the agent as context, by name' })),
  mcp_connectors: Type.Optional(Type.Array(Type.Object({ name: Name, required: Type.Optional(Type.Boolean()) }, { additionalProperties: false }), {
    description: 'MCP connectors of the organization attached, by name',
  })),
  ...Owned,
}, 'an agentic workflow: the API\'s AgenticWorkflowRequest without name (the key); connectors, providers and context services by name');

const byName = (schema: TSchema, what: string) => Type.Record(Type.String({ minLength: 1, maxLength: 255, pattern: '\\S' }), schema, {
  additionalProperties: false, description: `${what}, keyed by service name (unique in the environment across every type)`,
});

const envMembers = (CreateEnvironmentRequest.properties as Record<string, TSchema>);
const ManifestEnvironment = Type.Object({
  mode: Type.Optional(envMembers.mode!),
  cluster: Type.Optional(Type.String({ minLength: 1, description: 'the name of a cluster of the organization; default: the project rule\'s or the organization\'s default' })),
  auto_preview: Type.Optional(envMembers.auto_preview!),
  deployment_rule: Type.Optional(EnvironmentDeploymentRuleRequest),
  ...Owned,
  applications: Type.Optional(byName(ApplicationEntry, 'applications')),
  containers: Type.Optional(byName(ContainerEntry, 'containers')),
  databases: Type.Optional(byName(DatabaseEntry, 'databases')),
  jobs: Type.Optional(byName(JobEntry, 'jobs')),
  workflows: Type.Optional(byName(WorkflowEntry, 'agentic workflows')),
}, { additionalProperties: false, description: 'an environment of the project, keyed by its name' });

export const Manifest = Type.Object({
  version: Type.Literal(1),
  project: Type.Object({ name: ProjectRequest.properties.name, description: ProjectRequest.properties.description }, { additionalProperties: false }),
  environments: Type.Optional(Type.Record(Type.String({ minLength: 1, maxLength: 255, pattern: '\\S' }), ManifestEnvironment, {
    additionalProperties: false, description: 'the project\'s environments this file describes, keyed by name',
  })),
}, {
  additionalProperties: false,
  title: 'berth.yaml',
  description: 'A berth project and its environments as a file (decision 0745): plan and apply it with POST /project/{id}/apply or `berth apply -f berth.yaml`',
});

// ---- loose static types of the document (the service bodies are the API's requests, checked by the schema)
export type ServiceKind = 'applications' | 'containers' | 'databases' | 'jobs' | 'workflows';
export const SERVICE_KINDS: readonly ServiceKind[] = ['applications', 'containers', 'databases', 'jobs', 'workflows'];
export type ServiceEntry = Record<string, unknown> & {
  variables?: Record<string, VariableValue>; secrets?: Record<string, SecretReference>;
  advanced_settings?: Record<string, unknown>; custom_domains?: Array<{ domain: string; generate_certificate?: boolean; use_cdn?: boolean }>;
};
export interface EnvironmentDoc {
  mode?: 'DEVELOPMENT' | 'STAGING' | 'PRODUCTION'; cluster?: string; auto_preview?: boolean;
  deployment_rule?: Static<typeof EnvironmentDeploymentRuleRequest>;
  variables?: Record<string, VariableValue>; secrets?: Record<string, SecretReference>;
  applications?: Record<string, ServiceEntry>; containers?: Record<string, ServiceEntry>; databases?: Record<string, ServiceEntry>;
  jobs?: Record<string, ServiceEntry>; workflows?: Record<string, ServiceEntry>;
}
export interface ManifestDoc {
  version: 1;
  project: { name: string; description?: string | null | undefined };
  environments?: Record<string, EnvironmentDoc>;
}

// ---- the routes' shapes

export const ManifestProblem = Type.Object({
  file: Type.String(), line: Type.Integer(), column: Type.Integer(), path: Type.String({ description: 'where in the document, e.g. environments.staging.applications.web.cpu' }),
  field: Type.String({ description: 'the same as path (the errors list of every 400)' }), message: Type.String(),
});
export type ManifestProblem = Static<typeof ManifestProblem>;

export const ApplyRequest = Type.Object({
  document: Type.String({ minLength: 1, maxLength: 1_000_000, description: 'the berth.yaml text' }),
  file: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'the file\'s name, shown in errors and recorded as the owner of what it creates (default berth.yaml); use its path in the repository' })),
  prune: Type.Optional(Type.Boolean({ description: 'delete what this file owns and no longer names (default false)' })),
  deploy: Type.Optional(Type.Boolean({ description: 'queue a deployment of each service the apply changed (default false)' })),
  secret_values: Type.Optional(Type.Record(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }), Type.String(), {
    description: 'values of the env:NAME references (the CLI fills them from its environment); never stored except as the secrets they fill',
  })),
}, { additionalProperties: false });
export type ApplyRequest = Static<typeof ApplyRequest>;

export const DryRunQuery = Type.Object({ dry_run: Type.Optional(Type.Boolean({ description: 'true: answer the plan, write nothing' })) });

const FieldChange = Type.Object({
  field: Type.String(),
  from: Type.Optional(Type.Unknown()),
  to: Type.Optional(Type.Unknown()),
  changed: Type.Optional(Type.Boolean({ description: 'secrets only: whether the value changes (values are never shown)' })),
});
export type FieldChange = Static<typeof FieldChange>;

export const PlannedChange = Type.Object({
  action: Type.Union([Type.Literal('create'), Type.Literal('update'), Type.Literal('unchanged'), Type.Literal('delete')]),
  kind: Type.String({ description: 'project, environment, deployment_rule, application, container, database, job, workflow, variable, secret, advanced_settings, custom_domain' }),
  path: Type.String({ description: 'where in the document, e.g. environments.staging.applications.web' }),
  name: Type.String(),
  id: Type.Union([Type.String(), Type.Null()], { description: 'the existing resource, null for a create' }),
  changes: Type.Array(FieldChange),
});
export type PlannedChange = Static<typeof PlannedChange>;

export const ApplyResult = Type.Object({
  dry_run: Type.Boolean(),
  file: Type.String(),
  project: Type.Object({ id: Type.Union([Type.String(), Type.Null()]), name: Type.String() }),
  summary: Type.Object({ create: Type.Integer(), update: Type.Integer(), unchanged: Type.Integer(), delete: Type.Integer() }),
  changes: Type.Array(PlannedChange),
  deployments: Type.Array(Type.Object({ service_id: Type.String(), name: Type.String(), deployment_id: Type.String() })),
});
export type ApplyResult = Static<typeof ApplyResult>;

/** each service kind's entry schema (state.ts reads existing services into these shapes) */
export const SERVICE_ENTRIES: Readonly<Record<ServiceKind, TSchema>> = {
  applications: ApplicationEntry, containers: ContainerEntry, databases: DatabaseEntry, jobs: JobEntry, workflows: WorkflowEntry,
};
