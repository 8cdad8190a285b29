// SQL of the runs per pull request (pull-request-runs.ts). Reads the previews module's row of a
// pull request and the deployments of its preview environment (read only: previews and
// deployments keep writing their own tables); writes only this module's runs.
import type { Queryable } from '../../db/db.ts';
import { repositoryKey } from '../git-push/git-push.rules.ts';
import { repositoryOfSpec } from '../provider-status/provider-status.rules.ts';
import type { WorkflowSpec } from './workflows.rules.ts';

/** what a run per pull request needs of its preview (the previews module's row) */
export interface PreviewRow {
  id: string; organization_id: string; source_environment_id: string; provider: string; repository_key: string; repository_url: string;
  pull_request_number: number; title: string; body: string | null; author: string | null; base_branch: string; head_branch: string;
  head_commit: string; preview_environment_id: string | null; preview_environment_name: string | null; state: string; from_fork: boolean;
}

export async function findPreview(db: Queryable, previewId: string, lock = false): Promise<PreviewRow | null> {
  const rows = await db.query<PreviewRow>(
    `select id, organization_id, source_environment_id, provider, repository_key, repository_url, pull_request_number, title, body, author,
       base_branch, head_branch, head_commit, preview_environment_id, preview_environment_name, state, from_fork
     from previews where id = $1${lock ? ' for share' : ''}`, [previewId]);
  return rows[0] ?? null;
}

/**
 * Whether the preview environment is deployed and healthy at the head commit: the newest
 * deployment of each of its services (workflows aside) is finished and DEPLOYED (the engine
 * settles DEPLOYED once the service answers its health checks), and at least one of them
 * deployed the pull request's head commit.
 */
export async function previewReadyAt(db: Queryable, environmentId: string, headCommit: string): Promise<boolean> {
  const rows = await db.query<{ waiting: number; at_head: number; services: number }>(
    `with newest as (
       select distinct on (s.id) s.id, d.status, d.finished, d.metadata
       from services s left join deployments d on d.service_id = s.id
       where s.environment_id = $1 and s.type <> 'AGENTIC_WORKFLOW'
       order by s.id, d.created_at desc nulls last, d.id desc)
     select count(*) filter (where status is distinct from 'DEPLOYED' or not coalesce(finished, false))::int as waiting,
       count(*) filter (where metadata->'preview'->>'head_commit' = $2)::int as at_head, count(*)::int as services
     from newest`, [environmentId, headCommit]);
  const r = rows[0]!;
  return r.services > 0 && r.waiting === 0 && r.at_head > 0;
}

export interface TriggeredWorkflow { id: string; name: string; organization_id: string; spec: WorkflowSpec }

/** the source environment's workflows that pull requests trigger */
export async function pullRequestWorkflows(db: Queryable, environmentId: string): Promise<TriggeredWorkflow[]> {
  return db.query<TriggeredWorkflow>(
    `select s.id, s.name, w.organization_id, s.spec from services s join agentic_workflows w on w.service_id = s.id
     where s.environment_id = $1 and s.type = 'AGENTIC_WORKFLOW' and jsonb_typeof(s.spec->'pull_requests') = 'object'
     order by s.created_at, s.id`, [environmentId]);
}

/** the copy of a workflow (by name) in a preview environment, or null */
export async function workflowCopy(db: Queryable, environmentId: string, name: string): Promise<string | null> {
  const rows = await db.query<{ id: string }>(
    `select id from services where environment_id = $1 and type = 'AGENTIC_WORKFLOW' and lower(name) = lower($2) limit 1`, [environmentId, name]);
  return rows[0]?.id ?? null;
}

/** the services of a preview environment a run is told about (workflows aside) */
export async function previewServices(db: Queryable, environmentId: string): Promise<Array<{ id: string; name: string; slug: string; type: string; spec: Record<string, unknown> }>> {
  return db.query(`select id, name, slug, type, spec from services where environment_id = $1 and type <> 'AGENTIC_WORKFLOW' order by created_at, id`, [environmentId]);
}

/** a new PULL_REQUEST run; null when this workflow has one for this preview and head commit already */
export async function insertPullRequestRun(db: Queryable, r: { workflowId: string; organizationId: string; payload: unknown; triggeredBy: string; previewId: string; headCommit: string }): Promise<{ id: string } | null> {
  const rows = await db.query<{ id: string }>(
    `insert into agentic_workflow_runs (workflow_id, organization_id, trigger, payload, triggered_by, preview_id, head_commit)
     values ($1, $2, 'PULL_REQUEST', $3::jsonb, $4, $5, $6)
     on conflict (workflow_id, preview_id, head_commit) where preview_id is not null do nothing returning id`,
    [r.workflowId, r.organizationId, JSON.stringify(r.payload), r.triggeredBy, r.previewId, r.headCommit]);
  return rows[0] ?? null;
}

/** the preview's runs not finished, locked: those at another head commit than `headCommit` (all when null) */
export async function openRunsOfPreview(db: Queryable, previewId: string, headCommit: string | null): Promise<Array<{ id: string; deployment_id: string | null }>> {
  return db.query(
    `select id, deployment_id from agentic_workflow_runs where preview_id = $1 and status in ('QUEUED', 'RUNNING')
       and ($2::text is null or head_commit <> $2) order by created_at, id for update`, [previewId, headCommit]);
}

/** the runs not finished that run in one of the environments (about to be removed), locked */
export async function openRunsIn(db: Queryable, environmentIds: string[]): Promise<Array<{ id: string; deployment_id: string | null; preview_state: string | null }>> {
  return db.query(
    `select r.id, r.deployment_id, p.state as preview_state from agentic_workflow_runs r left join previews p on p.id = r.preview_id
     where r.clone_environment_id = any($1::uuid[]) and r.preview_id is not null and r.status in ('QUEUED', 'RUNNING')
     order by r.created_at, r.id for update of r`, [environmentIds]);
}

/** the git token of the environment's service that builds from the repository (a run per pull request clones with it), or null */
export async function repositoryTokenId(db: Queryable, environmentId: string, key: string): Promise<string | null> {
  const rows = await db.query<{ type: string; spec: Record<string, unknown> }>(
    `select type, spec from services where environment_id = $1 and type in ('APPLICATION', 'JOB') order by created_at, id`, [environmentId]);
  for (const r of rows) {
    const { repositoryUrl, gitTokenId } = repositoryOfSpec(r.type, r.spec);
    if (repositoryUrl && gitTokenId && repositoryKey(repositoryUrl) === key) return gitTokenId;
  }
  return null;
}
