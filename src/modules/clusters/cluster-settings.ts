// Cluster advanced settings (GET/PUT /organization/{id}/cluster/{id}/advancedSettings, the public
// API's ClusterAdvancedSettings): the platform-neutral keys of that object, their defaults, and
// the rule of PUT (keys sent change, the others keep their value; an unknown key is a 400). Only
// the keys that differ from the defaults are stored, so defaults may evolve. berth records them;
// the local engines do not act on them yet (like a service's rendered manifests).
import { Type, type Static } from 'typebox';

const Cidrs = Type.Array(Type.String({ minLength: 1 }), { maxItems: 100 });
const refuseUnknown = { additionalProperties: { not: {} } };

const KEYS = {
  'registry.image_retention_time': Type.Integer({ minimum: 0, default: 31536000, description: 'seconds built images are kept in the cluster registry' }),
  'loki.log_retention_in_week': Type.Integer({ minimum: 1, default: 12, description: 'weeks runtime logs are kept' }),
  'pleco.resources_ttl': Type.Integer({ minimum: -1, default: -1, description: 'seconds before unused resources are cleaned (-1: never)' }),
  'qovery.static_ip_mode': Type.Boolean({ default: false }),
  'k8s.api.allowed_public_access_cidrs': Type.Array(Type.String(), { default: ['0.0.0.0/0'] }),
  'database.postgresql.deny_any_access': Type.Boolean({ default: false }),
  'database.postgresql.allowed_cidrs': Type.Array(Type.String(), { default: ['0.0.0.0/0'] }),
  'database.mysql.deny_any_access': Type.Boolean({ default: false }),
  'database.mysql.allowed_cidrs': Type.Array(Type.String(), { default: ['0.0.0.0/0'] }),
  'database.mongodb.deny_any_access': Type.Boolean({ default: false }),
  'database.mongodb.allowed_cidrs': Type.Array(Type.String(), { default: ['0.0.0.0/0'] }),
  'database.redis.deny_any_access': Type.Boolean({ default: false }),
  'database.redis.allowed_cidrs': Type.Array(Type.String(), { default: ['0.0.0.0/0'] }),
  'nginx.vcpu.request_in_milli_cpu': Type.Integer({ minimum: 1, default: 100 }),
  'nginx.vcpu.limit_in_milli_cpu': Type.Integer({ minimum: 1, default: 500 }),
  'nginx.memory.request_in_mib': Type.Integer({ minimum: 1, default: 768 }),
  'nginx.memory.limit_in_mib': Type.Integer({ minimum: 1, default: 768 }),
  'nginx.hpa.cpu_utilization_percentage_threshold': Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
  'nginx.hpa.min_number_instances': Type.Integer({ minimum: 1, default: 2 }),
  'nginx.hpa.max_number_instances': Type.Integer({ minimum: 1, default: 25 }),
} as const;

export const ClusterAdvancedSettings = Type.Object(KEYS, { title: 'ClusterAdvancedSettings' });
export type ClusterAdvancedSettings = Static<typeof ClusterAdvancedSettings>;

/** PUT body: any subset of the keys; CIDR lists are checked as lists of strings */
export const ClusterAdvancedSettingsPatch = Type.Partial(Type.Object({
  ...KEYS,
  'k8s.api.allowed_public_access_cidrs': Cidrs,
}), refuseUnknown);

function defaultClusterSettings(): ClusterAdvancedSettings {
  return Object.fromEntries(Object.entries(KEYS).map(([k, s]) => [k, structuredClone((s as unknown as { default: unknown }).default)])) as ClusterAdvancedSettings;
}

/** the complete settings from what is stored (only keys that differ from the defaults) */
export function completeClusterSettings(stored: Record<string, unknown>): ClusterAdvancedSettings {
  const out = defaultClusterSettings() as Record<string, unknown>;
  for (const k of Object.keys(KEYS)) if (stored[k] !== undefined) out[k] = stored[k];
  return out as ClusterAdvancedSettings;
}

/** what to store after a PUT: the current settings with the patch applied, minus the defaults */
export function storedClusterSettings(current: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const next = { ...completeClusterSettings(current), ...patch } as Record<string, unknown>;
  const defaults = defaultClusterSettings() as Record<string, unknown>;
  return Object.fromEntries(Object.entries(next).filter(([k, v]) => JSON.stringify(v) !== JSON.stringify(defaults[k])));
}
