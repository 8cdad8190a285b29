// The runtime members applications and containers share (resources, instances, ports, storage,
// probes, arguments, preview/deploy flags, groups, icon): their defaults (qovery-facts §2.6/§2.8),
// the merge of a request into the current members (sent members change, others stay), and the
// checks on the result. Pure.
import type { ClusterCapacity } from '../scope/scope.service.ts';
import { expandGroups, type ServiceGroups } from './groups/groups.service.ts';
import type { Healthchecks, HealthchecksRequest, Port, PortRequest, Storage, StorageRequest } from './common.schemas.ts';
import {
  checkCapacity, checkInstances, definedMembers, iconFor, normalizeHealthchecks, normalizePorts, normalizeStorage,
} from './common.rules.ts';

export interface RuntimeSpec {
  description: string | null;
  cpu: number;
  memory: number;
  gpu: number;
  ephemeral_storage_in_gib: number | null;
  min_running_instances: number;
  max_running_instances: number;
  ports: Port[];
  storage: Storage[];
  healthchecks: Healthchecks;
  arguments: string[];
  entrypoint: string | null;
  auto_preview: boolean;
  auto_deploy: boolean | null;
  cpu_architecture: string | null;
  annotations_groups: { id: string }[];
  labels_groups: { id: string }[];
  icon_uri: string;
}

export interface RuntimeRequest {
  description?: string | null;
  cpu?: number;
  memory?: number;
  gpu?: number;
  ephemeral_storage_in_gib?: number | null;
  min_running_instances?: number;
  max_running_instances?: number;
  ports?: PortRequest[] | null;
  storage?: StorageRequest[] | null;
  healthchecks?: HealthchecksRequest;
  arguments?: string[] | null;
  entrypoint?: string | null;
  auto_preview?: boolean;
  auto_deploy?: boolean | null;
  cpu_architecture?: string | null;
  annotations_groups?: { id: string }[];
  labels_groups?: { id: string }[];
  icon_uri?: string;
}

const RUNTIME_KEYS: readonly (keyof RuntimeSpec)[] = [
  'description', 'cpu', 'memory', 'gpu', 'ephemeral_storage_in_gib', 'min_running_instances', 'max_running_instances', 'ports',
  'storage', 'healthchecks', 'arguments', 'entrypoint', 'auto_preview', 'auto_deploy', 'cpu_architecture', 'annotations_groups',
  'labels_groups', 'icon_uri',
];

export function runtimeDefaults(type: string, envAutoPreview: boolean, autoDeploy: boolean): RuntimeSpec {
  return {
    description: null, cpu: 500, memory: 512, gpu: 0, ephemeral_storage_in_gib: null, min_running_instances: 1, max_running_instances: 1,
    ports: [], storage: [], healthchecks: {}, arguments: [], entrypoint: null, auto_preview: envAutoPreview, auto_deploy: autoDeploy,
    cpu_architecture: null, annotations_groups: [], labels_groups: [], icon_uri: iconFor(type),
  };
}

/** current members with the sent ones applied, normalised and checked against the cluster */
export function mergeRuntime(current: RuntimeSpec, body: RuntimeRequest, capacity: ClusterCapacity): RuntimeSpec {
  const sent = definedMembers(body);
  const picked: Partial<RuntimeRequest> = {};
  for (const key of RUNTIME_KEYS) if (key in sent) (picked as Record<string, unknown>)[key] = (sent as Record<string, unknown>)[key];
  const merged = { ...current, ...picked } as RuntimeSpec & RuntimeRequest;
  const ports = normalizePorts(merged.ports);
  const spec: RuntimeSpec = {
    ...merged,
    ports,
    storage: normalizeStorage(merged.storage),
    healthchecks: normalizeHealthchecks(merged.healthchecks, ports[0]?.internal_port ?? null),
    arguments: merged.arguments ?? [],
  };
  checkCapacity(spec, capacity);
  checkInstances(spec.min_running_instances, spec.max_running_instances);
  return spec;
}

/** runtime members of a stored spec, in response form (groups shown in full) */
export function presentRuntime(spec: RuntimeSpec, groups: ServiceGroups) {
  return {
    description: spec.description, cpu: spec.cpu, memory: spec.memory, gpu: spec.gpu, ephemeral_storage_in_gib: spec.ephemeral_storage_in_gib,
    min_running_instances: spec.min_running_instances, max_running_instances: spec.max_running_instances, ports: spec.ports,
    storage: spec.storage, healthchecks: spec.healthchecks, arguments: spec.arguments, entrypoint: spec.entrypoint,
    auto_preview: spec.auto_preview, auto_deploy: spec.auto_deploy, cpu_architecture: spec.cpu_architecture,
    ...expandGroups(spec, groups), icon_uri: spec.icon_uri,
  };
}

export function pickRuntime(spec: Record<string, unknown>): RuntimeSpec {
  const out: Record<string, unknown> = {};
  for (const key of RUNTIME_KEYS) out[key] = spec[key];
  return out as unknown as RuntimeSpec;
}
