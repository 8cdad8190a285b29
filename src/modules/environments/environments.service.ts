// Environments of a project: created on a cluster of the organization (the named one, the
// matching project deployment rule's, or the organization's default), edited, deleted with their
// services, variables and rules, and cloned (every service row copied, secrets re-sealed, runtime
// state reset) in one transaction. ADMIN manages, VIEWER reads.
// What other modules do with a clone (copy variables, workflow rows, reserve ports) and before a
// removal (engine uninstall, previews) is given by the composition root: `afterClone` and
// `beforeRemoval`, both run inside the transaction.
import type { Db, Queryable } from '../../db/db.ts';
import { page, type PageInfo, type PageRequest } from '../../http/pagination.ts';
import type { Sealer } from '../../lib/crypto.ts';
import { badRequest, notFound } from '../../lib/errors.ts';
import type { Principal } from '../access/principal.ts';
import type { CreationEvent } from '../audit/audit.creation.ts';
import type { ClustersService } from '../clusters/clusters.service.ts';
import type { DeploymentRulesService } from '../deployment-rules/deployment-rules.service.ts';
import type { ProjectsService } from '../projects/projects.service.ts';
import type { ScopeService } from '../scope/scope.service.ts';
import * as repo from './environments.repo.ts';
import { prepareEnvironmentRemoval, type BeforeEnvironmentsRemoved } from './environments.removal.ts';
import { refuseWhileDeleting, requestedCluster, resealSecrets } from './environments.rules.ts';
import type { CloneEnvironmentRequest, CreateEnvironmentRequest, EditEnvironmentRequest, Environment } from './environments.schemas.ts';

export type { BeforeEnvironmentsRemoved, RemovedEnvironments } from './environments.removal.ts';

/** a clone just made: its source, itself, and each source service's copy */
export interface ClonedEnvironment { fromEnvironmentId: string; toEnvironmentId: string; serviceIdMap: Map<string, string> }

/** what modules owning per-environment or per-service rows (variables, workflows…) do with a clone, inside its transaction */
export type AfterClone = (tx: Queryable, clone: ClonedEnvironment) => Promise<void>;

export interface EnvironmentsService {
  list(p: Principal, projectId: string, req: PageRequest): Promise<{ results: Environment[]; pagination: PageInfo }>;
  /** `creation`: the request's audit event, written by the creating statement */
  create(p: Principal, projectId: string, body: CreateEnvironmentRequest, creation?: CreationEvent): Promise<Environment>;
  get(p: Principal, environmentId: string): Promise<Environment>;
  update(p: Principal, environmentId: string, body: EditEnvironmentRequest): Promise<Environment>;
  /** deletes the environment with its services, variables and rules (removal hooks run first) */
  remove(p: Principal, environmentId: string): Promise<void>;
  clone(p: Principal, environmentId: string, body: CloneEnvironmentRequest): Promise<Environment>;
  /** a clone made by the system (workflow runs in CLONE_ENVIRONMENT mode): no caller to authorize */
  cloneForSystem(tx: Queryable | undefined, environmentId: string, options: { name: string; mode?: string; expiresAt?: string | null; clusterId?: string }): Promise<Environment>;
  /** maintenance: deletes throwaway copies whose expires_at has passed (`beforeRemoval` runs as for a user delete) */
  removeExpired(limit?: number): Promise<number>;
  /** marks environments `deleting` and runs `beforeRemoval`, in the caller's deleting transaction */
  prepareRemoval(tx: Queryable, organizationId: string, environmentIds: string[]): Promise<void>;
  /** pushes a preview copy's expiry back (previews), in the caller's transaction */
  setPreviewExpiry(tx: Queryable, environmentId: string, expiresAt: string): Promise<void>;
  /** deletes a preview copy, never an environment of another mode (previews; `prepareRemoval` first) */
  removePreview(tx: Queryable, environmentId: string): Promise<boolean>;
  /** deletes a workflow run's throwaway copy, never an environment a person made (workflow runs) */
  removeRunCopy(tx: Queryable, environmentId: string): Promise<boolean>;
  /** an environment's `auto_preview`, set with its deployment rule (deployment rules) */
  setAutoPreview(tx: Queryable, environmentId: string, autoPreview: boolean): Promise<void>;
}

export function createEnvironmentsService(deps: {
  db: Db; scope: ScopeService; projects: ProjectsService; sealer: Sealer; afterClone: AfterClone; beforeRemoval: BeforeEnvironmentsRemoved;
  /** the deployments module's lock of the environments' deployments, taken before a removal cascades (decision 0706) */
  lockDeployments(tx: Queryable, environmentIds: string[]): Promise<void>;
  clusters: Pick<ClustersService, 'ofOrganization' | 'defaultId'>;
  /** a new environment's deployment rule and a clone's (the deployment-rules module's table) */
  deploymentRules: Pick<DeploymentRulesService, 'matchingProjectRule' | 'insertNewEnvironmentRule' | 'copyEnvironmentRule'>;
  /** a clone's copy of one service row (the services module's table) */
  copyService(tx: Queryable, serviceId: string, toEnvironmentId: string, secrets: unknown): Promise<string>;
}): EnvironmentsService {
  const { db, scope, projects, sealer, clusters, deploymentRules } = deps;
  const prepareRemoval = (tx: Queryable, organizationId: string, environmentIds: string[]) =>
    prepareEnvironmentRemoval(tx, deps, organizationId, environmentIds);

  async function clusterFor(tx: Queryable, organizationId: string, body: { cluster_id?: string | undefined; cluster?: string | undefined }): Promise<string | null> {
    const asked = requestedCluster(body);
    if (asked === 'conflict') throw badRequest('cluster_id and cluster name different clusters; send one of them');
    if (asked === null) return null;
    if (!(await clusters.ofOrganization(tx, organizationId, asked.id))) {
      throw badRequest(`${asked.field} does not name a cluster of this organization`);
    }
    return asked.id;
  }

  async function mustFind(q: Queryable, id: string): Promise<Environment> {
    const env = await repo.findEnvironment(q, id);
    if (!env) throw notFound('Environment');
    return env;
  }

  async function cloneIn(tx: Queryable, source: Environment, options: { name: string; mode?: string | undefined; expiresAt?: string | null | undefined; clusterId?: string | null | undefined }): Promise<Environment> {
    const locked = await repo.lockEnvironment(tx, source.id);
    if (!locked) throw notFound('Environment');
    refuseWhileDeleting(locked);
    const id = await repo.insertEnvironment(tx, {
      organizationId: source.organization.id, projectId: source.project.id, clusterId: options.clusterId ?? source.cluster_id,
      name: options.name, mode: options.mode ?? source.mode, autoPreview: source.auto_preview,
      expiresAt: options.expiresAt ?? null, clonedFromId: source.id,
    });
    await deploymentRules.copyEnvironmentRule(tx, source.id, id);
    const serviceIdMap = new Map<string, string>();
    for (const s of await repo.servicesToClone(tx, source.id)) {
      serviceIdMap.set(s.id, await deps.copyService(tx, s.id, id, resealSecrets(s.secrets, sealer)));
    }
    await deps.afterClone(tx, { fromEnvironmentId: source.id, toEnvironmentId: id, serviceIdMap });
    return mustFind(tx, id);
  }

  function checkExpiry(expiresAt: string | null | undefined): void {
    if (expiresAt && Date.parse(expiresAt) <= Date.now()) throw badRequest('expires_at must be in the future');
  }

  return {
    prepareRemoval,
    setPreviewExpiry: (tx, environmentId, expiresAt) => repo.setExpiry(tx, environmentId, expiresAt),
    removePreview: (tx, environmentId) => repo.deletePreviewEnvironment(tx, environmentId),
    removeRunCopy: (tx, environmentId) => repo.deleteRunCopy(tx, environmentId),
    setAutoPreview: (tx, environmentId, autoPreview) => repo.setAutoPreview(tx, environmentId, autoPreview),
    async list(p, projectId, req) {
      await projects.authorizeIn(p, projectId, 'read');
      const { items, total } = await repo.listEnvironments(db, projectId, req.limit, req.offset, req.name ?? null);
      // an empty page may be a deleted project's: it is a 404 then
      if (items.length === 0 && !(await projects.exists(projectId))) throw notFound('Project');
      return page(req, items, total);
    },
    async create(p, projectId, body, creation) {
      const project = await projects.resolve(p, projectId, 'manage');
      const orgId = project.organization.id;
      return db.transaction(async (tx) => {
        const rule = await deploymentRules.matchingProjectRule(tx, projectId, body.name);
        const clusterId = (await clusterFor(tx, orgId, body)) ?? rule?.cluster_id ?? (await clusters.defaultId(tx, orgId));
        if (!clusterId) throw badRequest('cluster_id is required: the organization has no default cluster');
        const id = await repo.insertEnvironment(tx, {
          organizationId: orgId, projectId, clusterId, name: body.name, mode: body.mode ?? rule?.mode ?? 'DEVELOPMENT',
          autoPreview: body.auto_preview ?? false, expiresAt: null, clonedFromId: null,
        }, creation);
        await deploymentRules.insertNewEnvironmentRule(tx, id, rule);
        return mustFind(tx, id);
      });
    },
    async get(p, environmentId) {
      await scope.environment(p, environmentId, 'read');
      return mustFind(db, environmentId);
    },
    async update(p, environmentId, body) {
      await scope.environment(p, environmentId, 'manage');
      return db.transaction(async (tx) => {
        if (!(await repo.updateEnvironment(tx, environmentId, body))) throw notFound('Environment');
        return mustFind(tx, environmentId);
      });
    },
    async remove(p, environmentId) {
      const env = await scope.environment(p, environmentId, 'manage');
      await db.transaction(async (tx) => {
        await prepareRemoval(tx, env.organizationId, [environmentId]);
        if (!(await repo.deleteEnvironment(tx, environmentId))) throw notFound('Environment');
      });
    },
    async clone(p, environmentId, body) {
      const env = await scope.environment(p, environmentId, 'manage');
      checkExpiry(body.expires_at);
      return db.transaction(async (tx) => {
        const source = await mustFind(tx, environmentId);
        const clusterId = await clusterFor(tx, env.organizationId, body);
        return cloneIn(tx, source, { name: body.name, mode: body.mode, expiresAt: body.expires_at, clusterId });
      });
    },
    async removeExpired(limit = 50) {
      const expired = await repo.expiredEnvironments(db, limit);
      for (const env of expired) {
        await db.transaction(async (tx) => {
          await prepareRemoval(tx, env.organization_id, [env.id]);
          await repo.deleteEnvironment(tx, env.id);
        });
      }
      return expired.length;
    },
    async cloneForSystem(tx, environmentId, options) {
      const run = async (q: Queryable) => cloneIn(q, await mustFind(q, environmentId), options);
      return tx ? run(tx) : db.transaction(run);
    },
  };
}
