// Clusters of an organization: where environments run, and the capacity one service may request
// (cpu/memory/gpu, read by every service module through the scope service). ADMIN manages, VIEWER
// reads. A cluster that environments or project deployment rules still name cannot be deleted (409).
import type { Db, Queryable } from '../../db/db.ts';
import { page, type PageInfo, type PageRequest } from '../../http/pagination.ts';
import { badRequest, conflict, notFound } from '../../lib/errors.ts';
import type { Principal } from '../access/principal.ts';
import type { EngineNode } from '../../engine/index.ts';
import type { OrganizationsService } from '../organizations/organizations.service.ts';
import * as repo from './clusters.repo.ts';
import type { Cluster, ClusterRequest, ClusterStatus } from './clusters.schemas.ts';
import { completeClusterSettings, storedClusterSettings, type ClusterAdvancedSettings } from './cluster-settings.ts';

export interface ClustersService {
  list(p: Principal, organizationId: string, req: PageRequest): Promise<{ results: Cluster[]; pagination: PageInfo }>;
  create(p: Principal, organizationId: string, body: ClusterRequest): Promise<Cluster>;
  get(p: Principal, organizationId: string, clusterId: string): Promise<Cluster>;
  update(p: Principal, organizationId: string, clusterId: string, body: ClusterRequest): Promise<Cluster>;
  remove(p: Principal, organizationId: string, clusterId: string): Promise<void>;
  status(p: Principal, organizationId: string, clusterId: string): Promise<ClusterStatus>;
  statuses(p: Principal, organizationId: string): Promise<{ results: ClusterStatus[] }>;
  advancedSettings(p: Principal, organizationId: string, clusterId: string): Promise<ClusterAdvancedSettings>;
  editAdvancedSettings(p: Principal, organizationId: string, clusterId: string, patch: Record<string, unknown>): Promise<ClusterAdvancedSettings>;
  // for environments and deployment rules, often inside their own transaction (no caller to authorize):
  /** whether the cluster is one of the organization's */
  ofOrganization(q: Queryable, organizationId: string, clusterId: string): Promise<boolean>;
  /** the organization's default cluster, if any */
  defaultId(q: Queryable, organizationId: string): Promise<string | null>;
}

function toStatus(c: Cluster): ClusterStatus {
  return { cluster_id: c.id, status: c.status, is_deployed: c.status === 'READY' || c.status === 'DEPLOYED', last_deployment_date: null };
}

function checkNodes(min: number, max: number): void {
  if (min > max) throw badRequest('max_running_nodes must be at least min_running_nodes');
}

export function createClustersService(deps: { db: Db; organizations: OrganizationsService; engine?: { nodes(): Promise<EngineNode[] | undefined> } }): ClustersService {
  const { db, organizations } = deps;
  /** the engine's hosts (the Swarm's nodes), or nothing on a one-host engine */
  const withNodes = async (status: ClusterStatus): Promise<ClusterStatus> => {
    const nodes = await deps.engine?.nodes();
    return nodes ? { ...status, nodes } : status;
  };

  async function load(organizationId: string, clusterId: string): Promise<Cluster> {
    const cluster = await repo.findCluster(db, organizationId, clusterId);
    if (!cluster) throw notFound('Cluster');
    return cluster;
  }

  return {
    ofOrganization: (q, organizationId, clusterId) => repo.clusterOfOrganization(q, organizationId, clusterId),
    defaultId: (q, organizationId) => repo.defaultClusterId(q, organizationId),
    async list(p, organizationId, req) {
      await organizations.authorize(p, organizationId, 'read');
      const { items, total } = await repo.listClusters(db, organizationId, req.limit, req.offset, req.name ?? null);
      return page(req, items, total);
    },
    async create(p, organizationId, body) {
      await organizations.authorize(p, organizationId, 'manage');
      const min = body.min_running_nodes ?? 1;
      const max = body.max_running_nodes ?? min;
      checkNodes(min, max);
      return db.transaction((tx) => repo.insertCluster(tx, organizationId, { ...body, min_running_nodes: min, max_running_nodes: max }));
    },
    async get(p, organizationId, clusterId) {
      await organizations.authorize(p, organizationId, 'read');
      return load(organizationId, clusterId);
    },
    async update(p, organizationId, clusterId, body) {
      await organizations.authorize(p, organizationId, 'manage');
      const current = await load(organizationId, clusterId);
      checkNodes(body.min_running_nodes ?? current.min_running_nodes, body.max_running_nodes ?? current.max_running_nodes);
      const updated = await db.transaction((tx) => repo.updateCluster(tx, organizationId, clusterId, body));
      if (!updated) throw notFound('Cluster');
      return updated;
    },
    async remove(p, organizationId, clusterId) {
      await organizations.authorize(p, organizationId, 'manage');
      await load(organizationId, clusterId);
      const inUse = await repo.countEnvironmentsOnCluster(db, clusterId);
      if (inUse > 0) throw conflict(`The cluster is used by ${inUse} environment(s); delete or move them first`);
      if (!(await repo.deleteCluster(db, organizationId, clusterId))) throw notFound('Cluster');
    },
    async status(p, organizationId, clusterId) {
      await organizations.authorize(p, organizationId, 'read');
      return withNodes(toStatus(await load(organizationId, clusterId)));
    },
    async advancedSettings(p, organizationId, clusterId) {
      await organizations.authorize(p, organizationId, 'read');
      await load(organizationId, clusterId);
      return completeClusterSettings(await repo.clusterSettings(db, clusterId));
    },
    async editAdvancedSettings(p, organizationId, clusterId, patch) {
      await organizations.authorize(p, organizationId, 'manage');
      await load(organizationId, clusterId);
      const stored = await db.transaction(async (tx) => {
        const next = storedClusterSettings(await repo.clusterSettings(tx, clusterId, true), patch);
        await repo.saveClusterSettings(tx, clusterId, next);
        return next;
      });
      return completeClusterSettings(stored);
    },
    async statuses(p, organizationId) {
      await organizations.authorize(p, organizationId, 'read');
      const { items } = await repo.listClusters(db, organizationId, null, 0);
      return { results: await Promise.all(items.map((c) => withNodes(toStatus(c)))) };
    },
  };
}

/** bootstrap provisioner: the bootstrap organization gets a `local` default cluster */
export async function provisionLocalCluster(ctx: { db: Db }, organizationId: string): Promise<void> {
  await repo.ensureLocalCluster(ctx.db, organizationId);
}
