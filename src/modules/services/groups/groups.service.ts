// Organization annotations and labels groups: members read them, ADMINs manage them (they shape
// every workload of the organization). A group that a service references cannot be deleted
// (409 naming the service). Services reference groups by id: `checkServiceGroupRefs` refuses ids
// that are not groups of the organization (400) and `loadServiceGroups` expands them.
import type { Db, Queryable } from '../../../db/db.ts';
import { page, type PageInfo, type PageRequest } from '../../../http/pagination.ts';
import { badRequest, conflict, notFound } from '../../../lib/errors.ts';
import type { Principal } from '../../access/principal.ts';
import type { OrganizationsService } from '../../organizations/organizations.service.ts';
import * as repo from './groups.repo.ts';
import type { GroupKind } from './groups.repo.ts';
import type { AnnotationsGroup, AnnotationsGroupRequest, LabelsGroup, LabelsGroupRequest } from './groups.schemas.ts';

type GroupOf<K extends GroupKind> = K extends 'annotations' ? AnnotationsGroup : LabelsGroup;
type RequestOf<K extends GroupKind> = K extends 'annotations' ? AnnotationsGroupRequest : LabelsGroupRequest;

const LABEL: Record<GroupKind, string> = { annotations: 'Annotations group', labels: 'Labels group' };

function present<K extends GroupKind>(kind: K, row: Parameters<typeof repo.toAnnotationsGroup>[0]): GroupOf<K> {
  return (kind === 'annotations' ? repo.toAnnotationsGroup(row) : repo.toLabelsGroup(row)) as GroupOf<K>;
}

export interface ServiceGroupsService {
  list<K extends GroupKind>(p: Principal, orgId: string, kind: K, req: PageRequest): Promise<{ results: GroupOf<K>[]; pagination: PageInfo }>;
  create<K extends GroupKind>(p: Principal, orgId: string, kind: K, body: RequestOf<K>): Promise<GroupOf<K>>;
  get<K extends GroupKind>(p: Principal, orgId: string, kind: K, id: string): Promise<GroupOf<K>>;
  edit<K extends GroupKind>(p: Principal, orgId: string, kind: K, id: string, body: RequestOf<K>): Promise<GroupOf<K>>;
  remove(p: Principal, orgId: string, kind: GroupKind, id: string): Promise<void>;
}

export function createServiceGroupsService(deps: { db: Db; organizations: OrganizationsService }): ServiceGroupsService {
  const { db, organizations } = deps;
  return {
    async list(p, orgId, kind, req) {
      await organizations.authorize(p, orgId, 'read');
      const { rows, total } = await repo.listGroupRows(db, orgId, kind, req.limit, req.offset);
      return page(req, rows.map((r) => present(kind, r)), total);
    },
    async create(p, orgId, kind, body) {
      await organizations.authorize(p, orgId, 'manage');
      if (body.name.trim() === '') throw badRequest('name must not be blank');
      const group = kind === 'annotations'
        ? await repo.insertAnnotationsGroup(db, orgId, body as AnnotationsGroupRequest)
        : await repo.insertLabelsGroup(db, orgId, body as LabelsGroupRequest);
      return group as GroupOf<typeof kind>;
    },
    async get(p, orgId, kind, id) {
      await organizations.authorize(p, orgId, 'read');
      const row = (await repo.findGroupRows(db, orgId, kind, [id]))[0];
      if (!row) throw notFound(LABEL[kind]);
      return present(kind, row);
    },
    async edit(p, orgId, kind, id, body) {
      await organizations.authorize(p, orgId, 'manage');
      if (body.name.trim() === '') throw badRequest('name must not be blank');
      const group = kind === 'annotations'
        ? await repo.updateAnnotationsGroup(db, orgId, id, body as AnnotationsGroupRequest)
        : await repo.updateLabelsGroup(db, orgId, id, body as LabelsGroupRequest);
      if (!group) throw notFound(LABEL[kind]);
      return group as GroupOf<typeof kind>;
    },
    async remove(p, orgId, kind, id) {
      await organizations.authorize(p, orgId, 'manage');
      await db.transaction(async (tx) => {
        const user = await repo.serviceUsingGroup(tx, orgId, kind, id);
        if (user !== null) throw conflict(`${LABEL[kind]} is used by the service ${user}`);
        if (!(await repo.deleteGroup(tx, orgId, kind, id))) throw notFound(LABEL[kind]);
      });
    },
  };
}

interface GroupRefs { annotations_groups?: { id: string }[]; labels_groups?: { id: string }[] }

/** 400 unless every referenced group is a group of the organization */
export async function checkServiceGroupRefs(db: Queryable, orgId: string, spec: GroupRefs): Promise<void> {
  for (const kind of ['annotations', 'labels'] as const) {
    const refs = (kind === 'annotations' ? spec.annotations_groups : spec.labels_groups) ?? [];
    if (refs.length === 0) continue;
    const ids = refs.map((r) => r.id);
    if (new Set(ids).size !== ids.length) throw badRequest(`${kind}_groups: a group is listed twice`);
    const found = new Set((await repo.findGroupRows(db, orgId, kind, ids)).map((r) => r.id));
    const missing = ids.find((id) => !found.has(id));
    if (missing) throw badRequest(`${kind}_groups: unknown ${kind} group ${missing}`);
  }
}

export interface ServiceGroups { annotations: Map<string, AnnotationsGroup>; labels: Map<string, LabelsGroup> }

/** every group the given specs reference, by id */
export async function loadServiceGroups(db: Queryable, orgId: string, specs: readonly GroupRefs[]): Promise<ServiceGroups> {
  const a = specs.flatMap((s) => (Array.isArray(s.annotations_groups) ? s.annotations_groups.map((g) => g.id) : []));
  const l = specs.flatMap((s) => (Array.isArray(s.labels_groups) ? s.labels_groups.map((g) => g.id) : []));
  const annotations = new Map((await repo.findGroupRows(db, orgId, 'annotations', a)).map((r) => [r.id, repo.toAnnotationsGroup(r)] as const));
  const labels = new Map((await repo.findGroupRows(db, orgId, 'labels', l)).map((r) => [r.id, repo.toLabelsGroup(r)] as const));
  return { annotations, labels };
}

/** the full groups a spec references, in its order (a group deleted since is skipped) */
export function expandGroups(spec: GroupRefs, groups: ServiceGroups): { annotations_groups: AnnotationsGroup[]; labels_groups: LabelsGroup[] } {
  return {
    annotations_groups: (spec.annotations_groups ?? []).flatMap((g) => groups.annotations.get(g.id) ?? []),
    labels_groups: (spec.labels_groups ?? []).flatMap((g) => groups.labels.get(g.id) ?? []),
  };
}
