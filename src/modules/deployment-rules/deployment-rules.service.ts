// Deployment rules. Project rules are ordered defaults for new environments: the first rule
// whose wildcard matches a new environment's name gives it its mode and cluster (when the request
// names none) and its start/stop schedule. Each environment has one rule of its own (read and
// edited by id; created with the environment). ADMIN manages, VIEWER reads.
import type { Db, Queryable } from '../../db/db.ts';
import { page, type PageInfo, type PageRequest } from '../../http/pagination.ts';
import { badRequest, notFound } from '../../lib/errors.ts';
import type { Principal } from '../access/principal.ts';
import type { ClustersService } from '../clusters/clusters.service.ts';
import type { ProjectsService } from '../projects/projects.service.ts';
import type { ScopeService } from '../scope/scope.service.ts';
import * as repo from './deployment-rules.repo.ts';
import { checkPriorityOrder, DEFAULT_SCHEDULE, firstMatchingRule, validateSchedule, type Schedule, type ScheduleInput } from './deployment-rules.rules.ts';
import type { EnvironmentDeploymentRule, EnvironmentDeploymentRuleRequest, ProjectDeploymentRule, ProjectDeploymentRuleRequest } from './deployment-rules.schemas.ts';

type RuleList = { results: ProjectDeploymentRule[]; pagination: PageInfo };

export interface DeploymentRulesService {
  list(p: Principal, projectId: string, req: PageRequest): Promise<RuleList>;
  create(p: Principal, projectId: string, body: ProjectDeploymentRuleRequest): Promise<ProjectDeploymentRule>;
  get(p: Principal, projectId: string, ruleId: string): Promise<ProjectDeploymentRule>;
  update(p: Principal, projectId: string, ruleId: string, body: ProjectDeploymentRuleRequest): Promise<ProjectDeploymentRule>;
  remove(p: Principal, projectId: string, ruleId: string): Promise<void>;
  reorder(p: Principal, projectId: string, orderedIds: string[]): Promise<RuleList>;
  getForEnvironment(p: Principal, environmentId: string): Promise<EnvironmentDeploymentRule>;
  updateForEnvironment(p: Principal, environmentId: string, ruleId: string, body: EnvironmentDeploymentRuleRequest): Promise<EnvironmentDeploymentRule>;

  // For the environments module: a new environment gets its rule (from the project rule its name
  // matches) and a clone its source's, inside the creating transaction.
  /** the first of the project's rules (by priority) whose wildcard matches the environment's name */
  matchingProjectRule(tx: Queryable, projectId: string, environmentName: string): Promise<repo.StoredProjectRule | undefined>;
  /** a new environment's rule: the matching project rule's schedule and auto_stop, or the defaults */
  insertNewEnvironmentRule(tx: Queryable, environmentId: string, rule: repo.StoredProjectRule | undefined): Promise<void>;
  /** a clone takes its source's rule (or the defaults when the source has none) */
  copyEnvironmentRule(tx: Queryable, fromEnvironmentId: string, toEnvironmentId: string): Promise<void>;
}

function schedule(input: ScheduleInput): Schedule {
  const checked = validateSchedule(input);
  if (!checked.ok) throw badRequest(checked.error);
  return checked.value;
}

/** what this module asks of the environments module (its table holds `auto_preview`); declared
 * here since the environments service takes this one (no import circle) */
export interface EnvironmentAutoPreview {
  setAutoPreview(tx: Queryable, environmentId: string, autoPreview: boolean): Promise<void>;
}

export function createDeploymentRulesService(deps: {
  db: Db; projects: ProjectsService; scope: ScopeService; clusters: Pick<ClustersService, 'ofOrganization'>; environments: EnvironmentAutoPreview;
}): DeploymentRulesService {
  const { db, projects, scope, clusters } = deps;

  async function values(organizationId: string, body: ProjectDeploymentRuleRequest, current?: ProjectDeploymentRule): Promise<repo.ProjectRuleValues> {
    const s = schedule(body);
    if (!(await clusters.ofOrganization(db, organizationId, body.cluster_id))) throw badRequest('cluster_id does not name a cluster of this organization');
    return {
      name: body.name, description: body.description === undefined ? (current?.description ?? null) : body.description,
      mode: body.mode, clusterId: body.cluster_id, schedule: s, autoStop: body.auto_stop ?? current?.auto_stop ?? false,
      wildcard: body.wildcard ?? current?.wildcard ?? '',
    };
  }

  async function mustFind(projectId: string, ruleId: string): Promise<ProjectDeploymentRule> {
    const rule = await repo.findProjectRule(db, projectId, ruleId);
    if (!rule) throw notFound('Deployment rule');
    return rule;
  }

  return {
    matchingProjectRule: async (tx, projectId, environmentName) => firstMatchingRule(await repo.listStoredProjectRules(tx, projectId), environmentName),
    async insertNewEnvironmentRule(tx, environmentId, rule) {
      await repo.insertEnvironmentRule(tx, environmentId, rule?.schedule ?? DEFAULT_SCHEDULE, rule?.auto_stop ?? false, false);
    },
    copyEnvironmentRule: (tx, from, to) => repo.copyEnvironmentRule(tx, from, to),
    async list(p, projectId, req) {
      await projects.resolve(p, projectId, 'read');
      const { items, total } = await repo.listProjectRules(db, projectId, req.limit, req.offset);
      return page(req, items, total);
    },
    async create(p, projectId, body) {
      const project = await projects.resolve(p, projectId, 'manage');
      const v = await values(project.organization.id, body);
      return db.transaction((tx) => repo.insertProjectRule(tx, project.organization.id, projectId, v));
    },
    async get(p, projectId, ruleId) {
      await projects.resolve(p, projectId, 'read');
      return mustFind(projectId, ruleId);
    },
    async update(p, projectId, ruleId, body) {
      const project = await projects.resolve(p, projectId, 'manage');
      const current = await mustFind(projectId, ruleId);
      const v = await values(project.organization.id, body, current);
      const updated = await db.transaction((tx) => repo.updateProjectRule(tx, projectId, ruleId, v));
      if (!updated) throw notFound('Deployment rule');
      return updated;
    },
    async remove(p, projectId, ruleId) {
      await projects.resolve(p, projectId, 'manage');
      if (!(await repo.deleteProjectRule(db, projectId, ruleId))) throw notFound('Deployment rule');
    },
    async reorder(p, projectId, orderedIds) {
      await projects.resolve(p, projectId, 'manage');
      await db.transaction(async (tx) => {
        const problem = checkPriorityOrder(await repo.projectRuleIds(tx, projectId), orderedIds);
        if (problem) throw badRequest(problem);
        for (const [index, id] of orderedIds.entries()) await repo.setPriority(tx, projectId, id.toLowerCase(), index);
      });
      const { items, total } = await repo.listProjectRules(db, projectId, null, 0);
      return page({ page: 1, pageSize: 0, limit: null, offset: 0 }, items, total);
    },
    async getForEnvironment(p, environmentId) {
      await scope.environment(p, environmentId, 'read');
      return db.transaction((tx) => repo.ensureEnvironmentRule(tx, environmentId));
    },
    async updateForEnvironment(p, environmentId, ruleId, body) {
      await scope.environment(p, environmentId, 'manage');
      const s = schedule(body);
      return db.transaction(async (tx) => {
        await repo.ensureEnvironmentRule(tx, environmentId);
        if (!(await repo.updateEnvironmentRule(tx, environmentId, ruleId, s, body.auto_stop, body.on_demand_preview))) throw notFound('Deployment rule');
        if (body.auto_preview !== undefined) await deps.environments.setAutoPreview(tx, environmentId, body.auto_preview);
        return repo.findEnvironmentRule(tx, ruleId);
      });
    },
  };
}
