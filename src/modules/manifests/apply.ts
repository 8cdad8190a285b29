// Before the plan, what a document refers to (resolve): every secret reference to a value, every
// cluster, registry, LLM provider and MCP connector name to its id, each missing one a problem of
// the file. After it, the steps run (execute) through the owning modules' services, bound to the
// apply's one transaction, recording what the file owns and which services changed.
import { badRequest } from '../../lib/errors.ts';
import type { Sealer } from '../../lib/crypto.ts';
import type { Principal } from '../access/principal.ts';
import { SERVICE_KINDS, type ManifestDoc, type ManifestProblem, type SecretReference, type ServiceKind } from './manifest.schemas.ts';
import { fingerprint, type CurrentState, type OwnerRef, type ResolvedSecret, type Step } from './manifests.rules.ts';
import { databaseValue } from './database-refs.ts';
import { located } from './located.ts';
import * as repo from './manifests.repo.ts';
import { ALL, HANDLERS, LABEL_OF, TYPE_OF, type ManifestServices } from './state.ts';

interface Refs { clusters: Map<string, string>; registries: Map<string, string>; providers: Map<string, string>; connectors: Map<string, string> }

export interface Resolved { secrets: Map<string, ResolvedSecret>; refs: Refs; problems: Array<{ path: string; message: string }> }

const lower = (items: Array<{ id: string; name: string }>) => new Map(items.map((x) => [x.name.toLowerCase(), x.id]));

export async function resolve(s: ManifestServices, p: Principal, orgId: string, doc: ManifestDoc, state: CurrentState, secretValues: Record<string, string>): Promise<Resolved> {
  const refs: Refs = {
    clusters: lower((await s.clusters.list(p, orgId, ALL)).results),
    registries: lower((await s.registries.list(p, orgId, ALL)).results),
    providers: lower((await s.llmProviders.list(p, orgId, ALL)).results),
    connectors: lower((await s.mcpServers.list(p, orgId, ALL)).results),
  };
  const problems: Resolved['problems'] = [];
  const secrets = new Map<string, ResolvedSecret>();
  const need = (map: Map<string, string>, name: unknown, path: string, what: string) => {
    if (typeof name === 'string' && !map.has(name.toLowerCase())) problems.push({ path, message: `${path}: no ${what} named "${name}" in this organization` });
  };
  const projectSecrets = state.project ? await s.variables.secretValues([state.project.id]) : [];
  for (const [envName, env] of Object.entries(doc.environments ?? {})) {
    const path = `environments.${envName}`;
    const current = state.environments.find((e) => e.name.toLowerCase() === envName.toLowerCase());
    need(refs.clusters, env.cluster, `${path}.cluster`, 'cluster');
    const envSecrets = current ? await s.variables.secretValues([current.id]) : [];
    const resolveAll = async (ownerPath: string, refsOf: Record<string, SecretReference> | undefined, serviceId: string | null, exists: (key: string) => boolean) => {
      const serviceSecrets = serviceId ? await s.variables.secretValues([serviceId]) : [];
      for (const [key, ref] of Object.entries(refsOf ?? {})) {
        const at = `${ownerPath}.secrets.${key}`;
        const r = resolveOne(ref, at, secretValues, [serviceSecrets, envSecrets, projectSecrets], exists(key));
        if ('problem' in r) problems.push({ path: at, message: r.problem });
        else secrets.set(at, r);
      }
    };
    await resolveAll(path, env.secrets, null, (k) => Boolean(current?.secrets[k]));
    for (const kind of SERVICE_KINDS) {
      for (const [name, entry] of Object.entries(env[kind] ?? {})) {
        const spath = `${path}.${kind}.${name}`;
        const svc = current?.services.find((x) => x.kind === kind && x.name.toLowerCase() === name.toLowerCase());
        await resolveAll(spath, entry.secrets, svc?.id ?? null, (k) => Boolean(svc?.secrets[k]));
        const e = entry as Record<string, any>;
        if (kind === 'containers') need(refs.registries, e.registry, `${spath}.registry`, 'container registry');
        if (kind === 'jobs') need(refs.registries, e.source?.image?.registry, `${spath}.source.image.registry`, 'container registry');
        if (kind === 'workflows') {
          need(refs.providers, e.model?.llm_provider, `${spath}.model.llm_provider`, 'LLM provider');
          for (const [i, c] of ((e.mcp_connectors ?? []) as Array<{ name: string }>).entries()) need(refs.connectors, c.name, `${spath}.mcp_connectors.${i}.name`, 'MCP connector');
          if (e.model?.api_key) {
            const at = `${spath}.model.api_key`;
            const r = resolveOne(e.model.api_key, at, secretValues, [envSecrets, projectSecrets], Boolean(svc));
            if ('problem' in r) problems.push({ path: at, message: r.problem });
            else secrets.set(at, r);
          }
        }
      }
    }
  }
  return { secrets, refs, problems };
}

type SecretRows = Array<{ key: string; value: string }>;

function resolveOne(ref: SecretReference, at: string, supplied: Record<string, string>, chain: SecretRows[], exists: boolean): ResolvedSecret | { problem: string } {
  const [source, name] = ref.from.split(':') as ['env' | 'secret', string];
  const value = (v: string): ResolvedSecret => ({ value: v, fingerprint: fingerprint(v) });
  if (source === 'env') {
    if (Object.hasOwn(supplied, name)) return value(supplied[name]!);
    if (exists) return { keep: true };
    return { problem: `${at}: no value for env:${name}; send it as secret_values.${name} (the CLI reads the environment variable ${name})` };
  }
  for (const rows of chain) {
    const found = rows.find((r) => r.key === name);
    if (found) return value(found.value);
  }
  if (Object.hasOwn(supplied, name)) return value(supplied[name]!);
  return { problem: `${at}: no secret named ${name} in this service, its environment or its project, and no secret_values.${name}` };
}

export interface ExecuteContext {
  s: ManifestServices; p: Principal; orgId: string; file: string; refs: Refs; secrets: ReadonlyMap<string, ResolvedSecret>; sealer: Sealer;
  /** where a path of the document is in the file (errors of a step carry it) */
  locate(path: string): ManifestProblem;
}

/** a resource the file owns; `reference`: a variable or secret it set from a database's credentials */
interface Owned { id: string; kind: string; reference?: repo.Reference }

/** runs the steps in order; answers the project id and the services that changed (for deploy: true) */
export interface Executed {
  projectId: string;
  changed: Array<{ id: string; kind: ServiceKind; name: string }>;
  /** resources the file now owns, and the ids it deleted */
  owned: Owned[];
  disowned: string[];
}

export async function execute(c: ExecuteContext, steps: readonly Step[], existingProjectId: string | null): Promise<Executed> {
  const { s, p } = c;
  let projectId = existingProjectId;
  const envIds = new Map<string, string>();
  const serviceIds = new Map<string, string>();
  const changed = new Map<string, { id: string; kind: ServiceKind; name: string }>();
  const owned: Owned[] = [];
  const disowned: string[] = [];
  const envId = (name: string) => envIds.get(name.toLowerCase())!;
  const serviceKey = (env: string, kind: ServiceKind, name: string) => `${env.toLowerCase()}/${kind}/${name.toLowerCase()}`;
  const ownerOf = (o: OwnerRef) => {
    if (!o.service) return { scope: 'ENVIRONMENT', id: envId(o.environment) };
    return { scope: TYPE_OF[o.service.kind], id: serviceIds.get(serviceKey(o.environment, o.service.kind, o.service.name))! };
  };
  const markChanged = (o: OwnerRef) => {
    if (!o.service) return;
    const id = serviceIds.get(serviceKey(o.environment, o.service.kind, o.service.name))!;
    changed.set(id, { id, kind: o.service.kind, name: o.service.name });
  };

  for (const { change, op } of steps) {
    try {
      const act = change.action;
      if (op.t === 'delete') {
        if (op.what === 'environment') await s.environments.remove(p, change.id!);
        else if (op.what === 'service') await (op.kind === 'workflows' ? s.workflows.remove(p, change.id!) : s.services.remove(p, change.id!));
        else if (op.what === 'variable') await s.variables.remove(p, null, change.id!, 'any');
        else await s.domains.remove(p, TYPE_OF[op.kind!] as 'APPLICATION' | 'CONTAINER', op.serviceId!, change.id!);
        disowned.push(change.id!);
        continue;
      }
      if (op.t === 'project') {
        if (act === 'create') projectId = (await s.projects.create(p, c.orgId, { name: op.name, description: op.description ?? undefined })).id;
        else if (act === 'update') await s.projects.update(p, projectId!, { name: op.name, description: op.description ?? undefined });
        owned.push({ id: projectId!, kind: 'project' });
      } else if (op.t === 'environment') {
        const f = op.fields as { mode?: 'DEVELOPMENT' | 'STAGING' | 'PRODUCTION'; cluster?: string; auto_preview?: boolean };
        let id = change.id;
        if (act === 'create') {
          const clusterId = f.cluster ? c.refs.clusters.get(f.cluster.toLowerCase()) : undefined;
          // the environments schema's mode union is typed loosely (a mapped union); the document's is one of the same three
          id = (await s.environments.create(p, projectId!, { name: op.environment, mode: f.mode as never, auto_preview: f.auto_preview, ...(clusterId ? { cluster_id: clusterId } : {}) })).id;
        } else if (act === 'update') {
          await s.environments.update(p, id!, { ...(f.mode ? { mode: f.mode as never } : {}), ...(f.auto_preview !== undefined ? { auto_preview: f.auto_preview } : {}) });
        }
        envIds.set(op.environment.toLowerCase(), id!);
        owned.push({ id: id!, kind: 'environment' });
      } else if (op.t === 'rule') {
        if (act !== 'unchanged') {
          const rule = await s.deploymentRules.getForEnvironment(p, envId(op.environment));
          await s.deploymentRules.updateForEnvironment(p, envId(op.environment), rule.id, op.body as never);
        }
      } else if (op.t === 'variable' || op.t === 'secret') {
        const owner = ownerOf(op.owner);
        let id = change.id;
        let value = op.t === 'variable' ? op.value : 'keep' in op.secret ? null : op.secret.value;
        // a database's credentials: its id is known once its service step ran (created by this apply, or not)
        const databaseId = op.ref ? serviceIds.get(serviceKey(op.owner.environment, 'databases', op.ref.name)) ?? op.ref.databaseId! : null;
        // a secret one is written only by a role that may read it (0142), so it is opened again with that check
        if (op.ref && act !== 'unchanged' && (value === null || op.ref.secret)) value = await databaseValue(s, c.sealer, p, databaseId!, op.ref.property, op.ref.secret ? 'manage' : 'read');
        if (act === 'create') id = (await s.variables.create(p, owner.scope, owner.id, { key: op.key, value: value!, is_secret: op.t === 'secret' })).id;
        else if (act === 'update') await s.variables.edit(p, owner, id!, op.t === 'secret' ? 'secret' : 'variable', { key: op.key, value });
        if (act !== 'unchanged') markChanged(op.owner);
        owned.push({ id: id!, kind: op.t, ...(op.ref ? { reference: { database_id: databaseId!, property: op.ref.property } } : {}) });
      } else if (op.t === 'service') {
        const key = serviceKey(op.environment, op.kind, op.name);
        let id = change.id;
        if (act === 'create') {
          const body = requestBody(c, op.kind, op.body, serviceIds, op.environment, serviceKey);
          const apiKey = c.secrets.get(`${change.path}.model.api_key`);
          if (apiKey && 'value' in apiKey && body.model) (body.model as Record<string, unknown>).api_key = apiKey.value;
          id = await createService(c, envId(op.environment), op.kind, op.name, body);
        } else if (act === 'update') {
          const fields = new Set(change.changes.map((x) => x.field));
          const body = requestBody(c, op.kind, Object.fromEntries(Object.entries(op.body).filter(([k]) => fields.has(k))), serviceIds, op.environment, serviceKey);
          await editService(c, id!, op.kind, op.name, body);
        }
        serviceIds.set(key, id!);
        if (act !== 'unchanged') changed.set(id!, { id: id!, kind: op.kind, name: op.name });
        owned.push({ id: id!, kind: TYPE_OF[op.kind] });
      } else if (op.t === 'advanced') {
        if (act !== 'unchanged' && Object.keys(op.patch).length > 0) {
          const o = op.owner.service!;
          await s.services.editAdvancedSettings(p, ownerOf(op.owner).id, TYPE_OF[o.kind], LABEL_OF[o.kind], op.patch);
          markChanged(op.owner);
        }
      } else if (op.t === 'domain') {
        const o = ownerOf(op.owner);
        const type = o.scope as 'APPLICATION' | 'CONTAINER';
        let id = change.id;
        if (act === 'create') id = (await s.domains.create(p, type, o.id, op.body)).id;
        else if (act === 'update') await s.domains.edit(p, type, o.id, id!, op.body);
        owned.push({ id: id!, kind: 'custom_domain' });
      }
    } catch (err) {
      throw located(c.locate, change.path, err);
    }
  }
  return { projectId: projectId!, changed: [...changed.values()], owned, disowned };
}


/** the API request of a service entry: names of registries, providers, connectors and context services turned into ids */
function requestBody(c: ExecuteContext, kind: ServiceKind, body: Record<string, unknown>, serviceIds: Map<string, string>, env: string,
  serviceKey: (env: string, kind: ServiceKind, name: string) => string): Record<string, unknown> {
  const out: Record<string, any> = structuredClone(body);
  const registry = (name: string) => c.refs.registries.get(name.toLowerCase())!;
  if (kind === 'containers' && typeof out.registry === 'string') { out.registry_id = registry(out.registry); delete out.registry; }
  if (kind === 'jobs' && out.source?.image?.registry) { out.source.image.registry_id = registry(out.source.image.registry); delete out.source.image.registry; }
  if (kind === 'workflows') {
    if (out.model) {
      const { llm_provider: provider, api_key: apiKey, ...model } = out.model as Record<string, unknown>;
      out.model = { ...model, ...(provider ? { llm_provider_id: c.refs.providers.get(String(provider).toLowerCase()) } : {}) };
      void apiKey; // written on create only (decision 0745), by createService
    }
    if (out.mcp_connectors) { out.mcp_servers = (out.mcp_connectors as Array<{ name: string; required?: boolean }>).map((m) => ({ id: c.refs.connectors.get(m.name.toLowerCase()), required: m.required ?? false })); delete out.mcp_connectors; }
    if (out.context_services) {
      out.context_service_ids = (out.context_services as string[]).map((n) => {
        const id = SERVICE_KINDS.map((k) => serviceIds.get(serviceKey(env, k, n))).find(Boolean);
        if (!id) throw badRequest(`context service ${n} is not a service of this environment`);
        return id;
      });
      delete out.context_services;
    }
  }
  return out;
}

async function createService(c: ExecuteContext, environmentId: string, kind: ServiceKind, name: string, body: Record<string, unknown>): Promise<string> {
  const { s, p } = c;
  if (kind === 'workflows') return (await s.workflows.create(p, environmentId, { name, ...body } as never)).id;
  return ((await s.services.create(p, environmentId, HANDLERS[kind], { name, ...body })) as { id: string }).id;
}

async function editService(c: ExecuteContext, id: string, kind: ServiceKind, name: string, body: Record<string, unknown>): Promise<void> {
  const { s, p } = c;
  if (kind === 'workflows') { await s.workflows.update(p, id, { name, ...body } as never); return; }
  await s.services.edit(p, id, HANDLERS[kind], body);
}

export async function recordOwnership(q: Parameters<typeof repo.own>[0], orgId: string, projectId: string, file: string, owned: Owned[], disowned: string[]): Promise<void> {
  await repo.disown(q, disowned);
  for (const o of owned) await repo.own(q, { organizationId: orgId, projectId, resourceId: o.id, kind: o.kind, file, reference: o.reference ?? null });
}
