// SQL for project_deployment_rules and environment_deployment_rules.
import type { Queryable } from '../../db/db.ts';
import type { ConstraintMessages } from '../../db/errors.ts';
import { iso, isoRequired } from '../../lib/text.ts';
import { DEFAULT_SCHEDULE, wallTimeToDateTime, type Schedule } from './deployment-rules.rules.ts';
import type { EnvironmentDeploymentRule, ProjectDeploymentRule } from './deployment-rules.schemas.ts';

/** the user-facing messages of this module's constraints (composed in src/modules/constraints.ts) */
export const DEPLOYMENT_RULE_CONSTRAINTS: ConstraintMessages = {
  project_deployment_rules_name_key: { status: 409, message: 'Deployment rule name is already taken in this project' },
};

interface ProjectRuleRow {
  id: string; project_id: string; name: string; description: string | null; mode: string; cluster_id: string; timezone: string;
  start_time: string; stop_time: string; weekdays: string[]; auto_stop: boolean; wildcard: string; priority_index: number;
  created_at: Date; updated_at: Date | null;
}

const RULE_COLUMNS = `id, project_id, name, description, mode, cluster_id, timezone, start_time, stop_time, weekdays, auto_stop,
  wildcard, priority_index, created_at, updated_at`;

function toProjectRule(r: ProjectRuleRow): ProjectDeploymentRule {
  return {
    id: r.id, created_at: isoRequired(r.created_at), updated_at: iso(r.updated_at), project: { id: r.project_id }, name: r.name,
    description: r.description, mode: r.mode, cluster_id: r.cluster_id, timezone: r.timezone,
    start_time: wallTimeToDateTime(r.start_time), stop_time: wallTimeToDateTime(r.stop_time), weekdays: r.weekdays,
    auto_stop: r.auto_stop, wildcard: r.wildcard, priority_index: r.priority_index,
  };
}

/** a project rule as stored (times `HH:MM`), for copying into a new environment's rule */
export interface StoredProjectRule { id: string; mode: string; cluster_id: string; wildcard: string; priority_index: number; schedule: Schedule; auto_stop: boolean }

export async function listStoredProjectRules(db: Queryable, projectId: string): Promise<StoredProjectRule[]> {
  const rows = await db.query<ProjectRuleRow>(`select ${RULE_COLUMNS} from project_deployment_rules where project_id = $1 order by priority_index, created_at, id`, [projectId]);
  return rows.map((r) => ({
    id: r.id, mode: r.mode, cluster_id: r.cluster_id, wildcard: r.wildcard, priority_index: r.priority_index, auto_stop: r.auto_stop,
    schedule: { timezone: r.timezone, start_time: r.start_time, stop_time: r.stop_time, weekdays: r.weekdays as Schedule['weekdays'] },
  }));
}

export async function listProjectRules(db: Queryable, projectId: string, limit: number | null, offset: number): Promise<{ items: ProjectDeploymentRule[]; total: number }> {
  const rows = await db.query<ProjectRuleRow & { total: number }>(
    `select ${RULE_COLUMNS}, count(*) over () as total from project_deployment_rules where project_id = $1
      order by priority_index, created_at, id limit $2 offset $3`, [projectId, limit, offset]);
  let total = rows[0] ? Number(rows[0].total) : 0;
  if (!rows[0] && offset > 0) {
    const n = await db.query<{ n: number }>('select count(*)::int as n from project_deployment_rules where project_id = $1', [projectId]);
    total = n[0]?.n ?? 0;
  }
  return { items: rows.map(toProjectRule), total };
}

export async function findProjectRule(db: Queryable, projectId: string, id: string): Promise<ProjectDeploymentRule | null> {
  const rows = await db.query<ProjectRuleRow>(`select ${RULE_COLUMNS} from project_deployment_rules where id = $1 and project_id = $2`, [id, projectId]);
  return rows[0] ? toProjectRule(rows[0]) : null;
}

export interface ProjectRuleValues { name: string; description: string | null; mode: string; clusterId: string; schedule: Schedule; autoStop: boolean; wildcard: string }

export async function insertProjectRule(db: Queryable, organizationId: string, projectId: string, v: ProjectRuleValues): Promise<ProjectDeploymentRule> {
  const rows = await db.query<ProjectRuleRow>(
    `insert into project_deployment_rules (organization_id, project_id, name, description, mode, cluster_id, timezone, start_time,
       stop_time, weekdays, auto_stop, wildcard, priority_index)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11, $12,
       (select coalesce(max(priority_index), -1) + 1 from project_deployment_rules where project_id = $2))
     returning ${RULE_COLUMNS}`,
    [organizationId, projectId, v.name, v.description, v.mode, v.clusterId, v.schedule.timezone, v.schedule.start_time,
      v.schedule.stop_time, JSON.stringify(v.schedule.weekdays), v.autoStop, v.wildcard]);
  return toProjectRule(rows[0]!);
}

export async function updateProjectRule(db: Queryable, projectId: string, id: string, v: ProjectRuleValues): Promise<ProjectDeploymentRule | null> {
  const rows = await db.query<ProjectRuleRow>(
    `update project_deployment_rules set name = $3, description = $4, mode = $5, cluster_id = $6, timezone = $7, start_time = $8,
       stop_time = $9, weekdays = $10::jsonb, auto_stop = $11, wildcard = $12, updated_at = now()
      where id = $1 and project_id = $2 returning ${RULE_COLUMNS}`,
    [id, projectId, v.name, v.description, v.mode, v.clusterId, v.schedule.timezone, v.schedule.start_time, v.schedule.stop_time,
      JSON.stringify(v.schedule.weekdays), v.autoStop, v.wildcard]);
  return rows[0] ? toProjectRule(rows[0]) : null;
}

export async function deleteProjectRule(db: Queryable, projectId: string, id: string): Promise<boolean> {
  return (await db.query('delete from project_deployment_rules where id = $1 and project_id = $2 returning id', [id, projectId])).length > 0;
}

export async function projectRuleIds(db: Queryable, projectId: string): Promise<string[]> {
  const rows = await db.query<{ id: string }>('select id from project_deployment_rules where project_id = $1 for update', [projectId]);
  return rows.map((r) => r.id);
}

export async function setPriority(db: Queryable, projectId: string, id: string, index: number): Promise<void> {
  await db.query('update project_deployment_rules set priority_index = $3, updated_at = now() where id = $1 and project_id = $2', [id, projectId, index]);
}

// ---- environment rules ----

interface EnvRuleRow {
  id: string; environment_id: string; timezone: string; start_time: string; stop_time: string; weekdays: string[];
  auto_stop: boolean; on_demand_preview: boolean; auto_preview: boolean; created_at: Date; updated_at: Date | null;
}

function toEnvRule(r: EnvRuleRow): EnvironmentDeploymentRule {
  return {
    id: r.id, created_at: isoRequired(r.created_at), updated_at: iso(r.updated_at), environment: { id: r.environment_id },
    timezone: r.timezone, start_time: wallTimeToDateTime(r.start_time), stop_time: wallTimeToDateTime(r.stop_time),
    weekdays: r.weekdays, auto_stop: r.auto_stop, auto_preview: r.auto_preview, on_demand_preview: r.on_demand_preview,
  };
}

const ENV_RULE_SELECT = `select r.id, r.environment_id, r.timezone, r.start_time, r.stop_time, r.weekdays, r.auto_stop,
  r.on_demand_preview, e.auto_preview, r.created_at, r.updated_at
  from environment_deployment_rules r join environments e on e.id = r.environment_id`;

/** the environment's rule; an environment made without one (e.g. inserted directly) gets the defaults */
export async function ensureEnvironmentRule(db: Queryable, environmentId: string): Promise<EnvironmentDeploymentRule> {
  let rows = await db.query<EnvRuleRow>(`${ENV_RULE_SELECT} where r.environment_id = $1`, [environmentId]);
  if (!rows[0]) {
    await insertEnvironmentRule(db, environmentId, DEFAULT_SCHEDULE, false, false);
    rows = await db.query<EnvRuleRow>(`${ENV_RULE_SELECT} where r.environment_id = $1`, [environmentId]);
  }
  return toEnvRule(rows[0]!);
}

export async function insertEnvironmentRule(db: Queryable, environmentId: string, s: Schedule, autoStop: boolean, onDemandPreview: boolean): Promise<void> {
  await db.query(
    `insert into environment_deployment_rules (environment_id, timezone, start_time, stop_time, weekdays, auto_stop, on_demand_preview)
     values ($1, $2, $3, $4, $5::jsonb, $6, $7) on conflict (environment_id) do nothing`,
    [environmentId, s.timezone, s.start_time, s.stop_time, JSON.stringify(s.weekdays), autoStop, onDemandPreview]);
}

/** a clone takes its source's rule (or the defaults when the source has none) */
export async function copyEnvironmentRule(db: Queryable, fromEnvironmentId: string, toEnvironmentId: string): Promise<void> {
  await db.query(
    `insert into environment_deployment_rules (environment_id, timezone, start_time, stop_time, weekdays, auto_stop, on_demand_preview)
     select $2, timezone, start_time, stop_time, weekdays, auto_stop, on_demand_preview from environment_deployment_rules where environment_id = $1`,
    [fromEnvironmentId, toEnvironmentId]);
  await insertEnvironmentRule(db, toEnvironmentId, DEFAULT_SCHEDULE, false, false);
}

/** false when the environment has no rule of this id; the environment's `auto_preview` is its
 * owner's (environments), set by the service between this and `findEnvironmentRule` */
export async function updateEnvironmentRule(db: Queryable, environmentId: string, id: string, s: Schedule, autoStop: boolean | undefined,
  onDemandPreview: boolean | undefined): Promise<boolean> {
  const rows = await db.query<{ id: string }>(
    `update environment_deployment_rules set timezone = $3, start_time = $4, stop_time = $5, weekdays = $6::jsonb,
       auto_stop = coalesce($7, auto_stop), on_demand_preview = coalesce($8, on_demand_preview), updated_at = now()
      where id = $1 and environment_id = $2 returning id`,
    [id, environmentId, s.timezone, s.start_time, s.stop_time, JSON.stringify(s.weekdays), autoStop ?? null, onDemandPreview ?? null]);
  return rows.length > 0;
}

export async function findEnvironmentRule(db: Queryable, id: string): Promise<EnvironmentDeploymentRule> {
  const out = await db.query<EnvRuleRow>(`${ENV_RULE_SELECT} where r.id = $1`, [id]);
  return toEnvRule(out[0]!);
}
