// Compose services that run code (build or image) as berth applications and containers: build
// (context → root_path inside the git repository, dockerfile, target, args → variables), image,
// ports and expose, environment and env_file (keys berth refuses noted), command/entrypoint,
// healthcheck, deploy resources, volumes, depends_on (kept for the database links translate.ts makes).
import type { ApplicationOut, ContainerOut, DatabaseType, PortOut, Runtime } from './model.ts';
import { ComposeError } from './model.ts';
import { healthcheck } from './healthchecks.ts';
import { commandOf, parseImage, resources, volumes } from './resources.ts';
import { GENERIC_WHY, SERVICE_WHY, isMap, note, text, type Context } from './untranslated.ts';
import { parseEnvFile } from './values.ts';

function environment(ctx: Context, svc: string, value: unknown, out: Map<string, string>): void {
  const base = `services.${svc}.environment`;
  const put = (key: string, raw: unknown, where: string) => {
    if (raw === null || raw === undefined) {
      note(ctx, where, `no value: compose takes ${key} from the shell running it; add it to berth.yaml (a secret as env:${key})`);
      return;
    }
    out.set(key, text(ctx, where, raw));
  };
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      const s = String(item);
      const eq = s.indexOf('=');
      if (eq < 0) put(s, null, `${base}[${i}]`);
      else put(s.slice(0, eq), s.slice(eq + 1), `${base}[${i}]`);
    });
  } else if (isMap(value)) {
    for (const [k, v] of Object.entries(value)) put(k, v, `${base}.${k}`);
  } else if (value !== undefined) {
    note(ctx, base, 'neither a list of KEY=VALUE nor a map');
  }
}

function envFiles(ctx: Context, svc: string, value: unknown, out: Map<string, string>): void {
  const list = Array.isArray(value) ? value : [value];
  list.forEach((entry, i) => {
    const key = `services.${svc}.env_file${Array.isArray(value) ? `[${i}]` : ''}`;
    const path = typeof entry === 'string' ? entry : isMap(entry) && typeof entry.path === 'string' ? entry.path : null;
    const required = !(isMap(entry) && entry.required === false);
    if (!path) { note(ctx, key, 'not a file path'); return; }
    const content = ctx.options.readFile(path);
    if (content === null) {
      if (required) throw new ComposeError(`${key}: ${path} does not exist (relative to the compose file)`);
      note(ctx, key, `${path} does not exist (required: false): nothing read`);
      return;
    }
    for (const line of parseEnvFile(content)) {
      if (line.value === null) note(ctx, `${key} (${path}:${line.line})`, `no value: ${line.key} comes from the shell running compose; add it to berth.yaml`);
      else out.set(line.key, line.value);
    }
  });
}

/** "8080:80", "127.0.0.1:8080:80/udp", "80", {target, published, protocol} → berth ports */
function ports(ctx: Context, svc: string, value: unknown, publicly: boolean, field: 'ports' | 'expose'): PortOut[] {
  if (!Array.isArray(value)) { note(ctx, `services.${svc}.${field}`, 'not a list'); return []; }
  const out: PortOut[] = [];
  value.forEach((entry, i) => {
    const key = `services.${svc}.${field}[${i}]`;
    let target: number | null = null;
    let published = !publicly ? false : true;
    let protocol = 'tcp';
    let name: string | undefined;
    if (isMap(entry)) {
      target = Number(entry.target);
      published = publicly && entry.published !== undefined;
      protocol = typeof entry.protocol === 'string' ? entry.protocol : 'tcp';
      if (typeof entry.name === 'string') name = entry.name;
      for (const k of Object.keys(entry)) if (!['target', 'published', 'protocol', 'name', 'host_ip', 'mode', 'app_protocol'].includes(k)) note(ctx, `${key}.${k}`, GENERIC_WHY);
    } else {
      const s = String(entry);
      const [spec, proto] = s.split('/');
      protocol = proto ?? 'tcp';
      const parts = spec!.split(':');
      const last = parts.at(-1)!;
      if (last.includes('-')) { note(ctx, key, `port range ${last}: berth ports are single ports`); return; }
      target = Number(last);
      published = publicly && parts.length > 1;
      if (publicly && parts.length === 1) note(ctx, key, `${last} without a host port: compose publishes it on a random host port; berth makes it a public port served at the service's URL`);
      if (publicly && parts.length === 1) published = true;
    }
    if (!Number.isInteger(target) || target! < 1 || target! > 65535) { note(ctx, key, 'not a port number'); return; }
    if (published && field === 'ports' && !isMap(entry) && String(entry).split(':').length > 1) {
      // a host port has no meaning in berth: public ports are served at the service's URL
      ctx.untranslated.push({ key: `${key} (host port)`, why: 'berth serves a public port at the service\'s URL (HTTPS on 443), not on a host port' });
    }
    if (out.some((p) => p.internal_port === target)) return;
    out.push({ internal_port: target!, publicly_accessible: published, protocol: protocol === 'udp' ? 'UDP' : published ? 'HTTP' : 'TCP', ...(name ? { name } : {}) });
  });
  return out;
}

function dependsOn(ctx: Context, svc: string, value: unknown): string[] {
  const key = `services.${svc}.depends_on`;
  if (Array.isArray(value)) return value.map(String);
  if (isMap(value)) {
    for (const [dep, v] of Object.entries(value)) {
      if (isMap(v) && v.condition !== undefined && v.condition !== 'service_started') {
        note(ctx, `${key}.${dep}.condition`, `berth starts an environment's services together; ${String(v.condition)} is not waited for (a service should retry until what it needs answers)`);
      }
    }
    return Object.keys(value);
  }
  note(ctx, key, 'neither a list nor a map');
  return [];
}

/** a variable key berth accepts: letters, digits, underscores, starting with a letter, no reserved prefix */
function keyProblem(key: string): string | null {
  if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(key)) return 'berth variable keys are letters, digits and underscores, starting with a letter';
  if (/^(QOVERY_|BERTH_)/.test(key)) return 'the QOVERY_ and BERTH_ prefixes are reserved for berth\'s built-in variables';
  return null;
}

const RUNTIME_KEYS = new Set(['image', 'build', 'ports', 'expose', 'environment', 'env_file', 'command', 'entrypoint', 'healthcheck', 'depends_on', 'deploy', 'volumes']);

export function translateRuntime(ctx: Context, svc: string, def: Record<string, unknown>, named: Set<string>): ApplicationOut | ContainerOut | null {
  const key = `services.${svc}`;
  const env = new Map<string, string>();
  if (def.env_file !== undefined) envFiles(ctx, svc, def.env_file, env);
  if (def.environment !== undefined) environment(ctx, svc, def.environment, env);
  const portsOut = [
    ...(def.ports !== undefined ? ports(ctx, svc, def.ports, true, 'ports') : []),
    ...(def.expose !== undefined ? ports(ctx, svc, def.expose, false, 'expose') : []),
  ];
  const probe = def.healthcheck !== undefined ? healthcheck(ctx, svc, def.healthcheck, portsOut) : null;
  const entry = commandOf(ctx, `${key}.entrypoint`, def.entrypoint);
  const command = commandOf(ctx, `${key}.command`, def.command);
  const res = resources(ctx, svc, def.deploy);
  const storage = def.volumes !== undefined ? volumes(ctx, svc, def.volumes, named, ctx.options.volumeSizeGb ?? 10) : [];
  const deps = def.depends_on !== undefined ? dependsOn(ctx, svc, def.depends_on) : [];
  for (const k of Object.keys(def)) if (!RUNTIME_KEYS.has(k)) note(ctx, `${key}.${k}`, SERVICE_WHY[k] ?? GENERIC_WHY);

  const runtime: Runtime = {
    name: svc, ports: portsOut, variables: [],
    // compose: an entrypoint replaces the image's command too; berth's entrypoint is one word, the rest are arguments
    entrypoint: entry && entry.length > 0 ? entry[0]! : null,
    arguments: entry && entry.length > 0 ? [...entry.slice(1), ...(command ?? [])] : command,
    readiness_probe: probe, cpu: res.cpu, memory: res.memory, instances: res.instances, storage,
    databases: deps.map((d) => ({ database: d, type: 'POSTGRESQL' as DatabaseType, prefix: '' })),
  };

  let out: ApplicationOut | ContainerOut;
  if (def.build !== undefined) {
    const build = typeof def.build === 'string' ? { context: def.build } : isMap(def.build) ? def.build : null;
    if (!build) { note(ctx, `${key}.build`, 'neither a path nor a map'); return null; }
    const context = text(ctx, `${key}.build.context`, build.context ?? '.');
    if (/^[a-z]+:\/\/|^git@/.test(context)) { note(ctx, `${key}.build.context`, `a remote context (${context}): berth builds from the git repository of berth.yaml; make the service an application of that repository`); return null; }
    const root = joinPath(ctx.options.repositoryPath ?? '', context);
    if (root === null) { note(ctx, `${key}.build.context`, `${context} leaves the git repository the compose file is in`); return null; }
    const args = new Map<string, string>();
    if (build.args !== undefined) {
      const a = build.args;
      if (Array.isArray(a)) for (const item of a) { const s = String(item); const eq = s.indexOf('='); if (eq > 0) args.set(s.slice(0, eq), s.slice(eq + 1)); else note(ctx, `${key}.build.args.${s}`, 'no value: taken from the shell by compose'); }
      else if (isMap(a)) for (const [k, v] of Object.entries(a)) { if (v === null || v === undefined) note(ctx, `${key}.build.args.${k}`, 'no value: taken from the shell by compose'); else args.set(k, text(ctx, `${key}.build.args.${k}`, v)); }
    }
    for (const [k, v] of args) {
      if (env.has(k) && env.get(k) !== v) note(ctx, `${key}.build.args.${k}`, `the service's environment sets ${k} too (berth passes a service's variables to its build): the environment's value wins`);
      else env.set(k, v);
    }
    if (args.size > 0) note(ctx, `${key}.build.args`, 'imported as variables of the service: berth passes every variable to the build as a build argument, and at run time');
    for (const k of Object.keys(build)) {
      if (!['context', 'dockerfile', 'args', 'target'].includes(k)) note(ctx, `${key}.build.${k}`, k === 'dockerfile_inline' ? 'berth builds from a Dockerfile in the repository' : GENERIC_WHY);
    }
    if (def.image !== undefined) note(ctx, `${key}.image`, 'the service is built (build:); berth tags the image it builds itself');
    out = {
      kind: 'application', ...runtime,
      root_path: root === '' ? '/' : `/${root}`,
      dockerfile_path: typeof build.dockerfile === 'string' ? build.dockerfile : null,
      docker_target_build_stage: typeof build.target === 'string' ? build.target : null,
    };
  } else if (typeof def.image === 'string') {
    const image = parseImage(text(ctx, `${key}.image`, def.image));
    out = { kind: 'container', ...runtime, registry: image.registry, image_name: image.repository, tag: image.tag };
    note(ctx, `${key}.image`, `berth.yaml names a container registry of the organization: registry is set to ${image.registry}; create a registry of that name (or rename it in the file)`);
  } else {
    throw new ComposeError(`${key}: neither image nor build`);
  }
  for (const [k, v] of env) {
    const problem = keyProblem(k);
    if (problem) note(ctx, `${key}.environment.${k}`, problem);
    else out.variables.push({ key: k, value: v });
  }
  return out;
}

/** `base/rel` normalised inside the repository; null when it leaves it */
function joinPath(base: string, rel: string): string | null {
  const parts: string[] = [];
  for (const p of [...base.split('/'), ...rel.split('/')]) {
    if (p === '' || p === '.') continue;
    if (p === '..') { if (parts.length === 0) return null; parts.pop(); } else parts.push(p);
  }
  return parts.join('/');
}
