// Pure resolution of the variables a service runs with: built-ins, then project, environment and
// service variables (the narrowest scope wins per key), overrides in place, aliases resolved to
// the effective value of the key they point at. Secret-ness flows through aliases.

export interface StoredVariable {
  id: string;
  key: string;
  scope: string;
  /** 1 project, 2 environment, 3 service */
  depth: number;
  variable_type: string;
  is_secret: boolean;
  /** clear or opened value; null for aliases (and for secrets when not opened) */
  value: string | null;
  mount_path: string | null;
  target_id: string | null;
}

export interface EffectiveVariable {
  key: string;
  value: string | null;
  is_secret: boolean;
  mount_path: string | null;
  scope: string;
  variable_type: string;
  /** null for built-ins */
  variable_id: string | null;
}

export interface ServiceFacts {
  id: string;
  name: string;
  slug: string;
  type: string;
  environmentId: string;
  projectId: string;
  spec: Record<string, unknown>;
}

/** the first port of a service spec: `ports[0].internal_port` (applications, containers) or `port` */
export function firstPort(spec: Record<string, unknown>): number | null {
  const ports = spec.ports;
  if (Array.isArray(ports) && ports.length > 0) {
    const p = ports[0] as Record<string, unknown>;
    const port = p.internal_port ?? p.port;
    if (typeof port === 'number' && Number.isInteger(port)) return port;
  }
  return typeof spec.port === 'number' && Number.isInteger(spec.port) ? spec.port : null;
}

/** in-cluster host name of a service: `<slug>.<first 8 characters of the environment id>.svc` */
export function serviceHost(s: Pick<ServiceFacts, 'slug' | 'environmentId'>): string {
  return `${s.slug}.${s.environmentId.slice(0, 8)}.svc`;
}

/** `Z` + first 8 hex digits of the id, upper case: the id part of Qovery-style built-in names */
export function shortId(id: string): string {
  return 'Z' + id.replace(/-/g, '').slice(0, 8).toUpperCase();
}

/** built-ins of a service: its own BERTH_* facts, and the host/port of every service of its environment */
export function builtInVariables(self: ServiceFacts, siblings: readonly ServiceFacts[]): Array<{ key: string; value: string }> {
  const out: Array<{ key: string; value: string }> = [
    { key: 'BERTH_PROJECT_ID', value: self.projectId },
    { key: 'BERTH_ENVIRONMENT_ID', value: self.environmentId },
    { key: 'BERTH_SERVICE_ID', value: self.id },
    { key: 'BERTH_SERVICE_NAME', value: self.name },
    { key: 'BERTH_SERVICE_TYPE', value: self.type },
    { key: 'BERTH_SERVICE_HOST', value: serviceHost(self) },
  ];
  const port = firstPort(self.spec);
  if (port !== null) out.push({ key: 'BERTH_SERVICE_PORT', value: String(port) });
  for (const s of [self, ...siblings.filter((x) => x.id !== self.id)]) {
    const prefix = `QOVERY_${s.type}_${shortId(s.id)}`;
    out.push({ key: `${prefix}_HOST_INTERNAL`, value: serviceHost(s) });
    const p = firstPort(s.spec);
    if (p !== null) out.push({ key: `${prefix}_PORT`, value: String(p) });
  }
  return out;
}

const MAX_ALIAS_HOPS = 5;

/** the effective list, sorted by key */
export function resolveEffective(stored: readonly StoredVariable[], builtIns: ReadonlyArray<{ key: string; value: string }>): EffectiveVariable[] {
  const byId = new Map(stored.map((v) => [v.id, v]));
  const winner = new Map<string, StoredVariable | { builtIn: string }>();
  for (const b of builtIns) winner.set(b.key, { builtIn: b.value });
  for (const v of [...stored].sort((a, b) => a.depth - b.depth)) winner.set(v.key, v);

  // value and secret-ness of a key as the service sees it, following aliases a few hops at most
  const valueOfKey = (key: string, hops: number): { value: string | null; secret: boolean } => {
    const w = winner.get(key);
    if (!w) return { value: null, secret: false };
    if ('builtIn' in w) return { value: w.builtIn, secret: false };
    if (w.variable_type !== 'ALIAS') return { value: w.value, secret: w.is_secret };
    const target = w.target_id ? byId.get(w.target_id) : undefined;
    if (!target || target.key === key || hops >= MAX_ALIAS_HOPS) return { value: target?.value ?? null, secret: w.is_secret || (target?.is_secret ?? false) };
    const r = valueOfKey(target.key, hops + 1);
    return { value: r.value, secret: r.secret || w.is_secret };
  };

  const out: EffectiveVariable[] = [];
  for (const [key, w] of winner) {
    if ('builtIn' in w) {
      out.push({ key, value: w.builtIn, is_secret: false, mount_path: null, scope: 'BUILT_IN', variable_type: 'BUILT_IN', variable_id: null });
      continue;
    }
    const r = valueOfKey(key, 0);
    out.push({ key, value: r.value, is_secret: r.secret, mount_path: w.mount_path, scope: w.scope, variable_type: w.variable_type, variable_id: w.id });
  }
  return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}
