// Shapes shared by every service type: ports, storage, healthchecks (probes), git repository,
// annotations/labels group references, the registry object, the status object and the environment
// listing item. Request shapes carry no `default` keywords (the body Ajv fills defaults, which
// would reset members on edit): defaults are applied by the rules in common.rules.ts.
import { Type, type Static, type TSchema } from 'typebox';
import { BaseRecord, NullableString, Timestamp, Uuid } from '../../http/schemas.ts';

export const AP = { additionalProperties: false } as const;

export function Nullable<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()]);
}

export const ServiceName = Type.String({ minLength: 1, maxLength: 255, pattern: '\\S', description: 'unique in the environment across every service type, case-insensitively' });
export const PortNumber = Type.Integer({ minimum: 1, maximum: 65535 });
const PORT_PROTOCOLS = ['HTTP', 'GRPC', 'TCP', 'UDP'] as const;
const CPU_ARCHITECTURES = ['AMD64', 'ARM64'] as const;
const GIT_PROVIDERS = ['GITHUB', 'GITLAB', 'BITBUCKET'] as const;
const PROBE_SCHEMES = ['HTTP', 'HTTPS'] as const;

/** a union of string literals with its precise static type */
export function literalUnion<const T extends readonly string[]>(values: T) {
  return Type.Unsafe<T[number]>(Type.Union(values.map((v) => Type.Literal(v))));
}

export const CpuArchitecture = Nullable(literalUnion(CPU_ARCHITECTURES));

// ---- ports ---------------------------------------------------------------------------------
export const PortRequest = Type.Object({
  id: Type.Optional(Uuid),
  name: Type.Optional(NullableString),
  internal_port: PortNumber,
  external_port: Type.Optional(Nullable(PortNumber)),
  protocol: Type.Optional(literalUnion(PORT_PROTOCOLS)),
  publicly_accessible: Type.Boolean(),
  is_default: Type.Optional(Type.Boolean()),
  public_path: Type.Optional(NullableString),
  public_path_rewrite: Type.Optional(NullableString),
}, AP);
export type PortRequest = Static<typeof PortRequest>;

export const Port = Type.Object({
  id: Uuid,
  name: Type.String(),
  internal_port: Type.Integer(),
  external_port: Nullable(Type.Integer()),
  protocol: Type.String(),
  publicly_accessible: Type.Boolean(),
  is_default: Type.Boolean(),
  public_path: NullableString,
  public_path_rewrite: NullableString,
});
export type Port = Static<typeof Port>;

// ---- storage -------------------------------------------------------------------------------
export const StorageRequest = Type.Object({
  id: Type.Optional(Uuid),
  type: Type.Optional(Type.Literal('FAST_SSD')),
  size: Type.Integer({ minimum: 4, description: 'GB' }),
  mount_point: Type.String({ pattern: '^/', minLength: 1 }),
}, AP);
export type StorageRequest = Static<typeof StorageRequest>;

export const Storage = Type.Object({ id: Uuid, type: Type.String(), size: Type.Integer(), mount_point: Type.String() });
export type Storage = Static<typeof Storage>;

// ---- healthchecks --------------------------------------------------------------------------
const ProbeKindsRequest = Type.Object({
  tcp: Type.Optional(Nullable(Type.Object({ port: Type.Optional(Nullable(PortNumber)), host: Type.Optional(NullableString) }, AP))),
  http: Type.Optional(Nullable(Type.Object({
    path: Type.Optional(Type.String()), scheme: Type.Optional(literalUnion(PROBE_SCHEMES)), port: Type.Optional(Nullable(PortNumber)),
  }, AP))),
  exec: Type.Optional(Nullable(Type.Object({ command: Type.Array(Type.String(), { minItems: 1 }) }, AP))),
  grpc: Type.Optional(Nullable(Type.Object({ service: Type.Optional(NullableString), port: Type.Optional(Nullable(PortNumber)) }, AP))),
}, { ...AP, description: 'exactly one of tcp, http, exec, grpc' });

export const ProbeRequest = Type.Object({
  type: ProbeKindsRequest,
  initial_delay_seconds: Type.Optional(Type.Integer({ minimum: 0 })),
  period_seconds: Type.Optional(Type.Integer({ minimum: 1 })),
  timeout_seconds: Type.Optional(Type.Integer({ minimum: 1 })),
  success_threshold: Type.Optional(Type.Integer({ minimum: 1 })),
  failure_threshold: Type.Optional(Type.Integer({ minimum: 1 })),
}, AP);
export type ProbeRequest = Static<typeof ProbeRequest>;

export const HealthchecksRequest = Type.Object({
  readiness_probe: Type.Optional(Nullable(ProbeRequest)),
  liveness_probe: Type.Optional(Nullable(ProbeRequest)),
}, AP);
export type HealthchecksRequest = Static<typeof HealthchecksRequest>;

const ProbeKinds = Type.Object({
  tcp: Type.Optional(Type.Object({ port: Type.Integer(), host: NullableString })),
  http: Type.Optional(Type.Object({ path: Type.String(), scheme: Type.String(), port: Type.Integer() })),
  exec: Type.Optional(Type.Object({ command: Type.Array(Type.String()) })),
  grpc: Type.Optional(Type.Object({ service: NullableString, port: Type.Integer() })),
});
export const Probe = Type.Object({
  type: ProbeKinds,
  initial_delay_seconds: Type.Integer(),
  period_seconds: Type.Integer(),
  timeout_seconds: Type.Integer(),
  success_threshold: Type.Integer(),
  failure_threshold: Type.Integer(),
});
export type Probe = Static<typeof Probe>;
export const Healthchecks = Type.Object({
  readiness_probe: Type.Optional(Nullable(Probe)),
  liveness_probe: Type.Optional(Nullable(Probe)),
});
export type Healthchecks = Static<typeof Healthchecks>;

// ---- git repository ------------------------------------------------------------------------
export const GitRepositoryRequest = Type.Object({
  url: Type.String({ minLength: 1, description: 'http(s) URL of the repository' }),
  branch: Type.Optional(Type.String({ minLength: 1, description: 'default main' })),
  root_path: Type.Optional(Type.String({ minLength: 1, description: 'default /' })),
  git_token_id: Type.Optional(Nullable(Uuid)),
  provider: Type.Optional(literalUnion(GIT_PROVIDERS)),
}, AP);
export type GitRepositoryRequest = Static<typeof GitRepositoryRequest>;

export const GitRepository = Type.Object({
  url: Type.String(),
  branch: Type.String(),
  root_path: Type.String(),
  git_token_id: Nullable(Uuid),
  provider: NullableString,
  owner: NullableString,
  name: NullableString,
});
export type GitRepository = Static<typeof GitRepository>;

// ---- group references, registry ------------------------------------------------------------
const GroupRef = Type.Object({ id: Uuid }, AP);
export const GroupRefs = Type.Array(GroupRef);

export const AnnotationsGroup = Type.Object({
  ...BaseRecord, name: Type.String(),
  annotations: Type.Array(Type.Object({ key: Type.String(), value: Type.String() })),
  scopes: Type.Array(Type.String()),
});
export const LabelsGroup = Type.Object({
  ...BaseRecord, name: Type.String(),
  labels: Type.Array(Type.Object({ key: Type.String(), value: Type.String(), propagate_to_cloud_provider: Type.Boolean() })),
});

export const Registry = Type.Object({ id: Uuid, name: Type.String(), url: Type.String(), kind: Type.String() });
export type Registry = Static<typeof Registry>;

// ---- status, listing -----------------------------------------------------------------------
export const ServiceStatus = Type.Object({
  id: Uuid,
  state: Type.String(),
  service_deployment_status: Type.String({ description: 'NEVER_DEPLOYED, OUT_OF_DATE, UP_TO_DATE' }),
  last_deployment_date: Nullable(Timestamp),
});
export type ServiceStatus = Static<typeof ServiceStatus>;

export const ServiceListItem = Type.Object({
  ...BaseRecord,
  name: Type.String(),
  slug: Type.String(),
  service_type: Type.String(),
  environment: Type.Object({ id: Uuid }),
  description: NullableString,
  icon_uri: Type.String(),
  state: Type.String(),
  service_deployment_status: Type.String(),
  last_deployment_date: Nullable(Timestamp),
});
export type ServiceListItem = Static<typeof ServiceListItem>;

/** members every service response carries */
export const ServiceRecord = {
  ...BaseRecord,
  name: Type.String(),
  description: NullableString,
  environment: Type.Object({ id: Uuid }),
  service_type: Type.String(),
  icon_uri: Type.String(),
  maximum_cpu: Type.Integer({ description: 'millicores; the cluster capacity' }),
  maximum_memory: Type.Integer({ description: 'MB; the cluster capacity' }),
  maximum_gpu: Type.Integer({ minimum: 0 }),
};

/** runtime members shared by applications and containers (request side, all optional) */
export const RuntimeRequestMembers = {
  description: Type.Optional(NullableString),
  cpu: Type.Optional(Type.Integer({ minimum: 1, description: 'millicores (default 500)' })),
  memory: Type.Optional(Type.Integer({ minimum: 1, description: 'MB (default 512)' })),
  gpu: Type.Optional(Type.Integer({ minimum: 0 })),
  ephemeral_storage_in_gib: Type.Optional(Nullable(Type.Integer({ minimum: 0 }))),
  min_running_instances: Type.Optional(Type.Integer({ minimum: 0 })),
  max_running_instances: Type.Optional(Type.Integer({ minimum: -1, description: '-1: no limit' })),
  ports: Type.Optional(Nullable(Type.Array(PortRequest, { maxItems: 50 }))),
  storage: Type.Optional(Nullable(Type.Array(StorageRequest, { maxItems: 20 }))),
  healthchecks: Type.Optional(HealthchecksRequest),
  arguments: Type.Optional(Nullable(Type.Array(Type.String()))),
  entrypoint: Type.Optional(NullableString),
  auto_preview: Type.Optional(Type.Boolean()),
  auto_deploy: Type.Optional(Nullable(Type.Boolean())),
  cpu_architecture: Type.Optional(CpuArchitecture),
  annotations_groups: Type.Optional(GroupRefs),
  labels_groups: Type.Optional(GroupRefs),
  icon_uri: Type.Optional(Type.String()),
};

export const RuntimeResponseMembers = {
  cpu: Type.Integer(),
  memory: Type.Integer(),
  gpu: Type.Integer(),
  ephemeral_storage_in_gib: Nullable(Type.Integer()),
  min_running_instances: Type.Integer(),
  max_running_instances: Type.Integer(),
  ports: Type.Array(Port),
  storage: Type.Array(Storage),
  healthchecks: Healthchecks,
  arguments: Type.Array(Type.String()),
  entrypoint: NullableString,
  auto_preview: Type.Boolean(),
  auto_deploy: Nullable(Type.Boolean()),
  cpu_architecture: NullableString,
  annotations_groups: Type.Array(AnnotationsGroup),
  labels_groups: Type.Array(LabelsGroup),
};
