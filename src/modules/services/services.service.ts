// The one service model under every service type: authorization (VIEWER reads, DEVOPS writes),
// names (trimmed, unique case-insensitively across all services of the environment), slugs,
// create/get/list/edit/remove through a per-type handler, status, the environment's listing of
// every service, and advanced settings. Deletion lives only in `remove` (the deployments engineer
// hooks engine uninstall there).
import type { Config } from '../../config/config.ts';
import type { Db, Queryable } from '../../db/db.ts';
import { page, type PageInfo, type PageRequest } from '../../http/pagination.ts';
import type { Sealer } from '../../lib/crypto.ts';
import { badRequest, notFound } from '../../lib/errors.ts';
import { refuseWhileDeleting } from '../environments/environments.rules.ts';
import { iso, isoRequired, slugify } from '../../lib/text.ts';
import type { Principal } from '../access/principal.ts';
import type { CreationEvent } from '../audit/audit.creation.ts';
import type { EnvironmentScope, ScopeService } from '../scope/scope.service.ts';
import {
  advancedSettingKeys, applyAdvancedSettingsPatch, completeAdvancedSettings, defaultAdvancedSettings,
  validateAdvancedSettings, validateAdvancedSettingsPatch, type ServiceKind, type SettingValue,
} from './advanced-settings/index.ts';
import type { Registry, ServiceListItem, ServiceStatus } from './common.schemas.ts';
import { checkName, iconFor } from './common.rules.ts';
import { checkServiceGroupRefs, loadServiceGroups, type ServiceGroups } from './groups/groups.service.ts';
import { applyIngressSettingsNow, changedKeys, isIngressKey, type IngressApplyDeps } from './ingress-settings.ts';
import * as repo from './services.repo.ts';
import type { ServiceRow } from './services.repo.ts';

export interface HandlerContext { env: EnvironmentScope; db: Queryable; sealer: Sealer; config: Config }
interface Built {
  spec: object; secrets?: Record<string, string>; advancedSettings?: Record<string, unknown>;
  /** what a new row needs beside it (a PUBLIC database's port), in the inserting transaction */
  afterInsert?: (tx: Queryable, row: ServiceRow) => Promise<void>;
}
/** `facts`: what the handler's presentFacts read for these rows */
interface PresentContext { env: EnvironmentScope; registries: Map<string, Registry>; groups: ServiceGroups; config: Config; facts?: unknown }

/** what a service type module gives the shared model */
export interface ServiceTypeHandler<Create extends { name: string }, Edit extends { name?: string }, Res> {
  readonly type: string;
  /** used in "<label> not found" */
  readonly label: string;
  build(body: Create, ctx: HandlerContext): Promise<Built>;
  rebuild(row: ServiceRow, body: Edit, ctx: HandlerContext): Promise<Built>;
  /** registries the response shows */
  registryIds(row: ServiceRow): string[];
  /** facts kept beside the rows that the response shows, read once for a page of rows */
  presentFacts?(db: Queryable, rows: ServiceRow[]): Promise<unknown>;
  present(row: ServiceRow, ctx: PresentContext): Res;
}

export const ADVANCED_SETTINGS_KINDS: Readonly<Record<string, ServiceKind>> = { APPLICATION: 'application', CONTAINER: 'container', JOB: 'job' };

/** only the keys that differ from the kind's defaults are stored (defaults may evolve) */
export function storedAdvancedSettings(kind: ServiceKind, complete: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const defaults = defaultAdvancedSettings(kind) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of advancedSettingKeys(kind)) {
    if (!sameJson(complete[key], defaults[key])) out[key] = complete[key];
  }
  return out;
}

/** deep equality of JSON values regardless of key order (jsonb reorders keys) */
export function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== undefined).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)).map(([k, x]) => [k, canonical(x)]));
  }
  return v;
}

type List<T> = { results: T[]; pagination: PageInfo };

export interface ServicesService {
  /** `creation`: the request's audit event, written by the creating statement */
  create<C extends { name: string }, R>(p: Principal, environmentId: string, h: ServiceTypeHandler<C, any, R>, body: C, creation?: CreationEvent): Promise<R>;
  get<R>(p: Principal, id: string, h: ServiceTypeHandler<any, any, R>): Promise<R>;
  list<R>(p: Principal, environmentId: string, h: ServiceTypeHandler<any, any, R>, req: PageRequest): Promise<List<R>>;
  edit<E extends { name?: string }, R>(p: Principal, id: string, h: ServiceTypeHandler<any, E, R>, body: E): Promise<R>;
  /** deletes a service (any type when `type` is omitted) */
  remove(p: Principal, id: string, type?: string, label?: string): Promise<void>;
  status(p: Principal, id: string, type: string, label: string): Promise<ServiceStatus>;
  listEnvironmentServices(p: Principal, environmentId: string, req: PageRequest): Promise<List<ServiceListItem>>;
  getAdvancedSettings(p: Principal, id: string, type: string, label: string): Promise<Record<string, SettingValue>>;
  editAdvancedSettings(p: Principal, id: string, type: string, label: string, patch: Record<string, unknown>): Promise<Record<string, SettingValue>>;
  /** for type modules: run an authorized read of a row (404 then 403) */
  authorizedRow(p: Principal, id: string, type: string, label: string, action: 'read' | 'write' | 'manage'): Promise<{ row: ServiceRow; env: EnvironmentScope }>;
  /** for other modules' background work (no principal): a service's row, or null */
  findRow(id: string): Promise<ServiceRow | null>;
  /** for other modules' work without a caller (an agent run's context, the engine uninstall's
   * snapshot inside a removal's transaction): rows by id, in no particular order */
  rowsById(db: Queryable, ids: readonly string[]): Promise<ServiceRow[]>;
  /** the rows of an environment's services with one of these ids or (case-insensitively) these lower-case names */
  rowsInEnvironment(db: Queryable, environmentId: string, ids: readonly string[], lowerNames: readonly string[]): Promise<ServiceRow[]>;
  /** the rows of the services (of these environments, or these ids) deployed at least once */
  deployedRows(db: Queryable, by: 'environment_id' | 'id', ids: readonly string[]): Promise<ServiceRow[]>;
  // writes other modules ask for, each in the caller's transaction
  /** an environment clone's copy of one service row: new id, these (re-sealed) secrets, never deployed */
  copyInto(tx: Queryable, serviceId: string, toEnvironmentId: string, secrets: unknown): Promise<string>;
  /** a preview copy's service builds the pull request's branch, `auto_deploy` off (previews) */
  switchPreviewBranch(tx: Queryable, serviceId: string, type: string, branch: string): Promise<void>;
  /** deployed services whose variables a change at this owner affects become OUT_OF_DATE (variables) */
  markOutOfDate(tx: Queryable, level: 'project' | 'environment' | 'service', parentId: string): Promise<void>;
  /** a service's runtime state as its deployments move it (deployments) */
  setState(tx: Queryable, serviceId: string, state: string): Promise<void>;
  /** after a successful deploy: RUNNING, UP_TO_DATE unless edited since `startedAt` (deployments) */
  markDeployed(tx: Queryable, serviceId: string, startedAt: Date | null): Promise<void>;
  /** after an uninstall: STOPPED, NEVER_DEPLOYED (deployments) */
  markUninstalled(tx: Queryable, serviceId: string): Promise<void>;
}

function toStatus(row: ServiceRow): ServiceStatus {
  return { id: row.id, state: row.state, service_deployment_status: row.deployment_status, last_deployment_date: iso(row.last_deployment_at) };
}

export interface ServicesDeps extends IngressApplyDeps {
  db: Db; sealer: Sealer; scope: ScopeService; config: Config;
  /** what must happen before services disappear (the engine's uninstall), inside the deleting transaction */
  beforeRemoval(tx: Queryable, serviceIds: string[]): Promise<void>;
}

export function createServicesService(deps: ServicesDeps): ServicesService {
  const { db, sealer, scope, config } = deps;

  async function present<R>(h: ServiceTypeHandler<any, any, R>, rows: ServiceRow[], env: EnvironmentScope): Promise<R[]> {
    const ids = rows.flatMap((r) => h.registryIds(r));
    const registries = await repo.findRegistries(db, env.organizationId, ids);
    const groups = await loadServiceGroups(db, env.organizationId, rows.map((r) => r.spec));
    const facts = h.presentFacts ? await h.presentFacts(db, rows) : undefined;
    return rows.map((r) => h.present(r, { env, registries, groups, config, facts }));
  }

  async function authorizedRow(p: Principal, id: string, type: string, label: string, action: 'read' | 'write' | 'manage') {
    const env = await scope.service(p, id, action, type, label);
    const row = await repo.findService(db, id);
    if (!row) throw notFound(label);
    return { row, env };
  }

  function kindOf(type: string): ServiceKind {
    const kind = ADVANCED_SETTINGS_KINDS[type];
    if (!kind) throw badRequest(`${type} services have no advanced settings`);
    return kind;
  }

  return {
    authorizedRow,
    findRow: (id) => repo.findService(db, id),
    rowsById: (q, ids) => repo.findServicesByIds(q, ids),
    rowsInEnvironment: (q, environmentId, ids, lowerNames) => repo.findServicesInEnvironment(q, environmentId, ids, lowerNames),
    deployedRows: (q, by, ids) => repo.findDeployedServices(q, by, ids),
    copyInto: (tx, serviceId, toEnvironmentId, secrets) => repo.copyService(tx, serviceId, toEnvironmentId, secrets),
    switchPreviewBranch: (tx, serviceId, type, branch) => repo.switchBranch(tx, serviceId, type, branch),
    markOutOfDate: (tx, level, parentId) => repo.markServicesOutOfDate(tx, level, parentId),
    setState: (tx, serviceId, state) => repo.setServiceState(tx, serviceId, state),
    markDeployed: (tx, serviceId, startedAt) => repo.markServiceDeployed(tx, serviceId, startedAt),
    markUninstalled: (tx, serviceId) => repo.markServiceUninstalled(tx, serviceId),
    async create(p, environmentId, h, body, creation) {
      const env = await scope.environment(p, environmentId, 'write');
      refuseWhileDeleting(env);
      const name = checkName(body.name);
      // no transaction: the checks only read (a transaction at READ COMMITTED would not keep a
      // registry or group from being deleted before the insert either) and the insert is one
      // statement; BEGIN and COMMIT were two of a create's five round trips (issue 15). Only a
      // row that needs something beside it (afterInsert: a PUBLIC database's port) takes one
      const built = await h.build(body, { env, db, sealer, config });
      await checkServiceGroupRefs(db, env.organizationId, built.spec);
      const insert = (q: Queryable) => repo.insertService(q, {
        organizationId: env.organizationId, projectId: env.projectId, environmentId: env.environmentId, type: h.type,
        name, slug: slugify(name), spec: built.spec, secrets: built.secrets ?? {}, advancedSettings: built.advancedSettings ?? {},
      }, creation);
      const { afterInsert } = built;
      const row = afterInsert
        ? await db.transaction(async (tx) => { const inserted = await insert(tx); await afterInsert(tx, inserted); return inserted; })
        : await insert(db);
      return (await present(h, [row], env))[0]!;
    },
    async get(p, id, h) {
      const { row, env } = await authorizedRow(p, id, h.type, h.label, 'read');
      return (await present(h, [row], env))[0]!;
    },
    async list(p, environmentId, h, req) {
      const env = await scope.environment(p, environmentId, 'read');
      const { rows, total } = await repo.listServices(db, environmentId, h.type, req.limit, req.offset, req.name ?? null);
      return page(req, await present(h, rows, env), total);
    },
    async edit(p, id, h, body) {
      const env = await scope.service(p, id, 'write', h.type, h.label);
      refuseWhileDeleting(env);
      const row = await db.transaction(async (tx) => {
        const current = await repo.findService(tx, id, true);
        if (!current) throw notFound(h.label);
        const name = body.name === undefined ? current.name : checkName(body.name);
        const built = await h.rebuild(current, body, { env, db: tx, sealer, config });
        await checkServiceGroupRefs(tx, env.organizationId, built.spec);
        const advancedSettings = built.advancedSettings ?? current.advanced_settings;
        const outdated = name !== current.name || !sameJson(built.spec, current.spec) || !sameJson(advancedSettings, current.advanced_settings);
        return repo.updateService(tx, id, { name, slug: slugify(name), spec: built.spec, secrets: built.secrets ?? current.secrets, advancedSettings, outdated });
      });
      return (await present(h, [row], env))[0]!;
    },
    async remove(p, id, type, label = 'Service') {
      await scope.service(p, id, 'write', type, label);
      await db.transaction(async (tx) => {
        await deps.beforeRemoval(tx, [id]);
        if (!(await repo.deleteService(tx, id))) throw notFound(label);
      });
    },
    async status(p, id, type, label) {
      const { row } = await authorizedRow(p, id, type, label, 'read');
      return toStatus(row);
    },
    async listEnvironmentServices(p, environmentId, req) {
      await scope.environment(p, environmentId, 'read');
      const { rows, total } = await repo.listServices(db, environmentId, null, req.limit, req.offset, req.name ?? null);
      return page(req, rows.map((r) => ({
        id: r.id, created_at: isoRequired(r.created_at), updated_at: iso(r.updated_at), name: r.name, slug: r.slug,
        service_type: r.type, environment: { id: r.environment_id },
        description: typeof r.spec.description === 'string' ? r.spec.description : null,
        icon_uri: typeof r.spec.icon_uri === 'string' ? r.spec.icon_uri : iconFor(r.type),
        ...statusMembers(r),
      })), total);
    },
    async getAdvancedSettings(p, id, type, label) {
      const kind = kindOf(type);
      const { row } = await authorizedRow(p, id, type, label, 'read');
      return completeAdvancedSettings(kind, row.advanced_settings) as Record<string, SettingValue>;
    },
    async editAdvancedSettings(p, id, type, label, patch) {
      const kind = kindOf(type);
      const checked = validateAdvancedSettingsPatch(kind, patch);
      if (!checked.ok) throw badRequest(`${checked.field}: ${checked.message}`);
      await scope.service(p, id, 'write', type, label);
      let ingressChanged = false;
      const row = await db.transaction(async (tx) => {
        const current = await repo.findService(tx, id, true);
        if (!current) throw notFound(label);
        const before = completeAdvancedSettings(kind, current.advanced_settings) as Record<string, SettingValue>;
        const next = applyAdvancedSettingsPatch(before, patch as Record<string, SettingValue>);
        const whole = validateAdvancedSettings(kind, next);
        if (!whole.ok) throw badRequest(`${whole.field}: ${whole.message}`);
        const stored = storedAdvancedSettings(kind, next);
        // ingress-only keys take effect at once (below); any other change waits for a deployment
        const changed = changedKeys(before, next);
        ingressChanged = changed.some(isIngressKey);
        return repo.updateService(tx, id, {
          name: current.name, slug: current.slug, spec: current.spec, secrets: current.secrets, advancedSettings: stored,
          outdated: changed.some((k) => !isIngressKey(k)),
        });
      });
      const complete = completeAdvancedSettings(kind, row.advanced_settings) as Record<string, SettingValue>;
      if (ingressChanged) await applyIngressSettingsNow(deps, row, complete);
      return complete;
    },
  };
}

function statusMembers(r: ServiceRow) {
  return { state: r.state, service_deployment_status: r.deployment_status, last_deployment_date: iso(r.last_deployment_at) };
}

/** the members every typed response starts with */
export function presentBase(row: ServiceRow, env: EnvironmentScope) {
  return {
    id: row.id, created_at: isoRequired(row.created_at), updated_at: iso(row.updated_at), name: row.name,
    environment: { id: row.environment_id }, service_type: row.type,
    maximum_cpu: env.capacity.cpu, maximum_memory: env.capacity.memory, maximum_gpu: env.capacity.gpu,
  };
}
