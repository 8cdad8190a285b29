// Projects of an organization: the folder environments live in. ADMIN manages, VIEWER reads.
// Deleting a project deletes its environments too (and through them their services, variables
// and rules): they are marked `deleting` and what must happen before their removal runs (the
// environments service's prepareRemoval: the engine uninstall), all in the transaction that
// deletes the rows. `resolve` is how other modules
// check a caller against a project (404 "Project not found", then 403); `authorizeIn` does the
// same from the project's organization alone, which is read once per process (a project never
// moves), so a list of a project's children costs no project lookup (issue 15).
import { rememberBounded } from '../../lib/bounded-map.ts';
import type { Db, Queryable } from '../../db/db.ts';
import { page, type PageInfo, type PageRequest } from '../../http/pagination.ts';
import { notFound } from '../../lib/errors.ts';
import type { Principal } from '../access/principal.ts';
import type { CreationEvent } from '../audit/audit.creation.ts';
import type { Action, Role } from '../access/roles.ts';
import type { OrganizationsService } from '../organizations/organizations.service.ts';
import * as repo from './projects.repo.ts';
import type { Project, ProjectRequest } from './projects.schemas.ts';

export interface ProjectsService {
  list(p: Principal, organizationId: string, req: PageRequest): Promise<{ results: Project[]; pagination: PageInfo }>;
  /** `creation`: the request's audit event, written by the creating statement */
  create(p: Principal, organizationId: string, body: ProjectRequest, creation?: CreationEvent): Promise<Project>;
  get(p: Principal, projectId: string): Promise<Project>;
  update(p: Principal, projectId: string, body: ProjectRequest): Promise<Project>;
  remove(p: Principal, projectId: string): Promise<void>;
  /** 404 "Project not found", then 403 when the caller may not do `action` in its organization */
  resolve(p: Principal, projectId: string, action: Action): Promise<Project & { role: Role }>;
  /**
   * `resolve` without reading the project when its organization is known: 404 when it is not
   * found, 403 as resolve. A deleted project may still pass (its organization stays known): a
   * caller that then finds nothing asks `exists` before answering.
   */
  authorizeIn(p: Principal, projectId: string, action: Action): Promise<Role>;
  exists(projectId: string): Promise<boolean>;
  /** for other modules' background work (an event's project_names_filter): the project's name, or null */
  nameOf(projectId: string): Promise<string | null>;
}


export function createProjectsService(deps: {
  db: Db; organizations: OrganizationsService;
  /** the environments service's prepareRemoval (made after this service, which it depends on) */
  prepareEnvironmentRemoval(tx: Queryable, organizationId: string, environmentIds: string[]): Promise<void>;
}): ProjectsService {
  const { db, organizations } = deps;

  /** project id → organization id: a project never moves, so an entry never goes stale */
  const organizationOf = new Map<string, string>();

  /** the project, or 404; its organization is remembered */
  async function find(projectId: string): Promise<Project> {
    const project = await repo.findProject(db, projectId);
    if (!project) throw notFound('Project');
    if (!organizationOf.has(projectId)) rememberBounded(organizationOf, projectId, project.organization.id);
    return project;
  }

  async function resolve(p: Principal, projectId: string, action: Action): Promise<Project & { role: Role }> {
    const project = await find(projectId);
    const role = await organizations.authorize(p, project.organization.id, action);
    return { ...project, role };
  }


  return {
    resolve,
    async authorizeIn(p, projectId, action) {
      const organizationId = organizationOf.get(projectId);
      if (organizationId === undefined) return (await resolve(p, projectId, action)).role;
      return organizations.authorize(p, organizationId, action);
    },
    async exists(projectId) {
      return (await repo.findProject(db, projectId)) !== null;
    },
    async nameOf(projectId) {
      return (await repo.findProject(db, projectId))?.name ?? null;
    },
    async list(p, organizationId, req) {
      await organizations.authorize(p, organizationId, 'read');
      const { items, total } = await repo.listProjects(db, organizationId, req.limit, req.offset, req.name ?? null);
      return page(req, items, total);
    },
    async create(p, organizationId, body, creation) {
      await organizations.authorize(p, organizationId, 'manage');
      // a single statement, the audit event's included: no transaction (BEGIN/COMMIT would triple
      // the round trips)
      return repo.insertProject(db, organizationId, body, creation);
    },
    async get(p, projectId) {
      const project = await find(projectId);
      await organizations.authorize(p, project.organization.id, 'read');
      return project;
    },
    async update(p, projectId, body) {
      await resolve(p, projectId, 'manage');
      const updated = await db.transaction((tx) => repo.updateProject(tx, projectId, body));
      if (!updated) throw notFound('Project');
      return updated;
    },
    async remove(p, projectId) {
      const project = await resolve(p, projectId, 'manage');
      await db.transaction(async (tx) => {
        const environmentIds = await repo.environmentIdsOfProject(tx, projectId);
        await deps.prepareEnvironmentRemoval(tx, project.organization.id, environmentIds);
        if (!(await repo.deleteProject(tx, projectId))) throw notFound('Project');
      });
    },
  };
}
