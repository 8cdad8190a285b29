// Cluster request and response shapes (the public API's ClusterRequest/Cluster core), plus the
// capacity one service may request on it (cpu millicores, memory MB, gpu): every service
// response reports it as maximum_cpu / maximum_memory / maximum_gpu.
import { Type, type Static } from 'typebox';
import { BaseRecord, NullableString, Paginated, Timestamp, Uuid } from '../../http/schemas.ts';

const CLOUD_PROVIDERS = ['AWS', 'SCW', 'GCP', 'DO', 'AZURE', 'OVH', 'CIVO', 'HETZNER', 'ORACLE', 'IBM', 'ON_PREMISE'] as const;
const KUBERNETES_MODES = ['MANAGED', 'SELF_MANAGED', 'PARTIALLY_MANAGED'] as const;

const literals = (values: readonly string[]) => Type.Union(values.map((v) => Type.Literal(v)));
const Name = Type.String({ minLength: 1, maxLength: 255, pattern: '\\S' });

export const CLUSTER_DEFAULTS = { disk_size: 40, cpu: 4000, memory: 8192, gpu: 0, min_running_nodes: 1, max_running_nodes: 1 };

export const ClusterRequest = Type.Object({
  name: Name,
  description: Type.Optional(NullableString),
  region: Type.String({ minLength: 1, maxLength: 100 }),
  cloud_provider: literals(CLOUD_PROVIDERS),
  kubernetes: Type.Optional(literals(KUBERNETES_MODES)),
  production: Type.Optional(Type.Boolean()),
  instance_type: Type.Optional(NullableString),
  min_running_nodes: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  max_running_nodes: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  disk_size: Type.Optional(Type.Integer({ minimum: 1, maximum: 65536, description: 'GB' })),
  cpu: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000_000, description: 'millicores one service may request at most (default 4000)' })),
  memory: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000_000, description: 'MB one service may request at most (default 8192)' })),
  gpu: Type.Optional(Type.Integer({ minimum: 0, maximum: 1024, description: 'GPUs one service may request at most (default 0)' })),
  is_default: Type.Optional(Type.Boolean({ description: 'the cluster new environments use when none is named; the first cluster of an organization is its default' })),
}, { additionalProperties: false });
export type ClusterRequest = Static<typeof ClusterRequest>;

export const Cluster = Type.Object({
  ...BaseRecord,
  organization: Type.Object({ id: Uuid }),
  name: Type.String(),
  description: Type.String(),
  region: Type.String(),
  cloud_provider: Type.String(),
  kubernetes: Type.String(),
  production: Type.Boolean(),
  instance_type: NullableString,
  min_running_nodes: Type.Integer(),
  max_running_nodes: Type.Integer(),
  disk_size: Type.Integer(),
  cpu: Type.Integer({ description: 'millicores' }),
  memory: Type.Integer({ description: 'MB' }),
  gpu: Type.Integer(),
  is_default: Type.Boolean(),
  status: Type.String(),
});
export type Cluster = Static<typeof Cluster>;
export const ClusterList = Paginated(Cluster);

const ClusterNode = Type.Object({
  id: Type.String({ description: 'the node\'s Swarm id' }),
  hostname: Type.String(),
  address: Type.String({ description: 'the address the node advertises to the cluster' }),
  role: Type.String({ description: 'manager or worker' }),
  leader: Type.Boolean(),
  state: Type.String({ description: 'ready, down, unknown or disconnected' }),
  availability: Type.String({ description: 'active, pause or drain' }),
  running_tasks: Type.Integer({ minimum: 0, description: 'tasks running on the node now' }),
});
export const ClusterStatus = Type.Object({
  cluster_id: Uuid,
  status: Type.String(),
  is_deployed: Type.Boolean(),
  last_deployment_date: Type.Union([Timestamp, Type.Null()]),
  nodes: Type.Optional(Type.Array(ClusterNode, { description: 'the hosts services run on (ENGINE=swarm: the Swarm\'s nodes, their state, availability and running tasks); absent on a one-host engine' })),
});
export type ClusterStatus = Static<typeof ClusterStatus>;
export const ClusterStatusList = Type.Object({ results: Type.Array(ClusterStatus) });
