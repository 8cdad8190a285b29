// An agent run per pull request (issue 40, decision 0750). A workflow with a `pull_requests`
// trigger runs once per head commit of each pull request of its repository whose preview
// environment (a copy of the workflow's environment) is deployed and healthy at that commit: the
// run deploys the preview's copy of the workflow, so its context services, berth's MCP server and
// its credential are the preview's (CLONE_ENVIRONMENT semantics, but the copy is the preview's and
// outlives the run). A newer head commit cancels the stale run (a new one starts once the preview
// is healthy again at the new head); the preview's removal (the pull request closed) cancels it.
// Hooks called inside deployment transactions only enqueue or cancel; the start itself is the
// `workflows.pull-request` task, outside them.
import type { Db, Queryable } from '../../db/db.ts';
import type { Sealer } from '../../lib/crypto.ts';
import type { TaskQueue } from '../../queue/queue.ts';
import type { DeploymentRecord, DeploymentsService } from '../deployments/deployments.service.ts';
import { repositoryKey } from '../git-push/git-push.rules.ts';
import * as prRepo from './pull-request-runs.repo.ts';
import * as repo from './runs.repo.ts';
import { emitRunEvent, type RunFinishedHook } from './runs.lifecycle.ts';
import { enqueueOutputDeliveries } from './outputs.service.ts';
import { defaultSpec } from './workflows.rules.ts';

export interface PullRequestRunDeps {
  db: Db; queue: TaskQueue; sealer: Sealer; deployments: Pick<DeploymentsService, 'request' | 'cancelInTransaction'>;
  /** a service's default public URL, or null (the composition root's links) */
  serviceUrl?: (serviceId: string) => Promise<string | null>;
  onRunFinished?: RunFinishedHook;
}

const obj = (v: unknown): Record<string, unknown> | null => (v !== null && typeof v === 'object' && !Array.isArray(v) ? v as Record<string, unknown> : null);

/** the preview a deployment belongs to and the head commit it deploys (a preview's deployments carry metadata.preview) */
function previewOf(d: Pick<DeploymentRecord, 'metadata' | 'service_type'>): { previewId: string; headCommit: string } | null {
  const p = obj(d.metadata?.preview);
  if (!p || typeof p.preview_id !== 'string' || typeof p.head_commit !== 'string' || d.service_type === 'AGENTIC_WORKFLOW') return null;
  return { previewId: p.preview_id, headCommit: p.head_commit };
}

/** does the workflow's trigger take this pull request? */
export function triggeredBy(spec: { enabled?: boolean; pull_requests?: { repository_url: string; base_branch: string | null } | null }, pr: { repository_key: string; base_branch: string }): boolean {
  const t = spec.pull_requests;
  if (!t || spec.enabled === false) return false;
  return repositoryKey(t.repository_url) === pr.repository_key && (t.base_branch === null || t.base_branch === pr.base_branch);
}

/**
 * Cancels runs in the caller's transaction, saying why: the run first, so the settling deployment
 * keeps its words. `keepLog`: the run's deployment is about to go without settling (its
 * environment's removal), so its log is kept now; otherwise it is kept when it settles.
 */
async function cancelRuns(tx: Queryable, deps: PullRequestRunDeps, runs: Array<{ id: string; deployment_id: string | null }>, message: string, keepLog: boolean): Promise<void> {
  for (const run of runs) {
    await repo.setRun(tx, run.id, { status: 'CANCELED', message });
    await enqueueOutputDeliveries(tx, deps, run.id);
    if (!run.deployment_id) continue;
    if (keepLog) await repo.keepRunLog(tx, run.id, run.deployment_id);
    else await deps.deployments.cancelInTransaction(tx, run.deployment_id);
  }
}

/** a preview deployment requested (inside its transaction): runs of the preview at an older head are stale */
export async function onPreviewDeploymentRequested(tx: Queryable, deps: PullRequestRunDeps, d: DeploymentRecord): Promise<void> {
  const at = previewOf(d);
  if (!at) return;
  const stale = await prRepo.openRunsOfPreview(tx, at.previewId, at.headCommit);
  await cancelRuns(tx, deps, stale, `A newer commit (${at.headCommit.slice(0, 12)}) was pushed to the pull request: this run was stale; one starts for the new head once its preview is healthy`, false);
}

/** a preview deployment settled (inside its transaction): the start is looked at once it commits */
export async function onPreviewDeploymentSettled(tx: Queryable, deps: PullRequestRunDeps, d: DeploymentRecord): Promise<void> {
  const at = previewOf(d);
  if (!at || d.status !== 'DEPLOYED') return;
  await deps.queue.enqueue(tx, 'workflows.pull-request', { previewId: at.previewId });
}

/** environments about to be removed (inside the removing transaction): the runs against them are canceled, their logs kept */
export async function beforeEnvironmentsRemoved(tx: Queryable, deps: PullRequestRunDeps, environmentIds: string[]): Promise<void> {
  for (const run of await prRepo.openRunsIn(tx, environmentIds)) {
    const message = run.preview_state === 'CLOSED'
      ? 'The pull request was closed: the run was canceled with its preview environment'
      : 'The preview environment the run ran against was deleted';
    await cancelRuns(tx, deps, [run], message, true);
  }
}

/**
 * The service's address on the preview environment's own network (its host is its slug), which the
 * run reaches through its egress proxy whatever the ingress and DNS (a development install's
 * `*.localhost` names resolve to nothing in a container): its default port, or a database's port.
 */
export function internalUrl(slug: string, type: string, spec: Record<string, unknown>): string | null {
  const ports = (Array.isArray(spec.ports) ? spec.ports : []) as Array<{ internal_port?: unknown; is_default?: unknown }>;
  const port = (ports.find((p) => p.is_default === true) ?? ports[0])?.internal_port ?? (type === 'DATABASE' ? spec.port : null);
  if (typeof port !== 'number') return null;
  return type === 'DATABASE' ? `tcp://${slug}:${port}` : `http://${slug}:${port}`;
}

/** what the run's agent is told of its pull request and preview (its payload) */
async function payloadOf(deps: PullRequestRunDeps, pr: prRepo.PreviewRow, environmentId: string): Promise<Record<string, unknown>> {
  const services = [];
  for (const s of await prRepo.previewServices(deps.db, environmentId)) {
    services.push({
      id: s.id, name: s.name, type: s.type, url: deps.serviceUrl ? await deps.serviceUrl(s.id) : null, internal_url: internalUrl(s.slug, s.type, s.spec),
    });
  }
  return {
    pull_request: {
      provider: pr.provider, number: pr.pull_request_number, title: pr.title, body: pr.body ?? '', author: pr.author,
      repository_url: pr.repository_url, base_branch: pr.base_branch, head_branch: pr.head_branch, head_commit: pr.head_commit, from_fork: pr.from_fork,
    },
    preview: { id: pr.id, environment_id: environmentId, environment_name: pr.preview_environment_name, services },
  };
}

/**
 * The `workflows.pull-request` task: when the preview is open and deployed and healthy at its
 * head commit, each workflow of its source environment that the pull request triggers gets its
 * run for that head (once: a second look finds the run made). Returns the runs started.
 */
export async function startPullRequestRuns(deps: PullRequestRunDeps, previewId: string): Promise<number> {
  const { db } = deps;
  const pr = await prRepo.findPreview(db, previewId);
  if (!pr || pr.state !== 'OPEN' || !pr.preview_environment_id) return 0;
  const workflows = (await prRepo.pullRequestWorkflows(db, pr.source_environment_id)).filter((w) => triggeredBy({ ...defaultSpec(), ...w.spec }, pr));
  if (workflows.length === 0 || !await prRepo.previewReadyAt(db, pr.preview_environment_id, pr.head_commit)) return 0;
  const payload = await payloadOf(deps, pr, pr.preview_environment_id);
  const label = `${pr.provider === 'GITLAB' ? 'merge request !' : 'pull request #'}${pr.pull_request_number}`;
  return db.transaction(async (tx) => {
    // the pull request as it is now: a newer head or a close since the look above starts nothing
    const now = await prRepo.findPreview(tx, previewId, true);
    if (!now || now.state !== 'OPEN' || now.head_commit !== pr.head_commit || now.preview_environment_id !== pr.preview_environment_id) return 0;
    let started = 0;
    for (const w of workflows) {
      const run = await prRepo.insertPullRequestRun(tx, {
        workflowId: w.id, organizationId: w.organization_id, payload, triggeredBy: label, previewId, headCommit: pr.head_commit,
      });
      if (!run) continue;
      started += 1;
      const copy = await prRepo.workflowCopy(tx, pr.preview_environment_id!, w.name);
      if (!copy) {
        await repo.setRun(tx, run.id, {
          status: 'FAILED', cloneEnvironmentId: pr.preview_environment_id,
          message: `The preview environment has no copy of workflow "${w.name}" (it was made before the workflow existed): close and reopen the pull request to preview it anew`,
        });
        await enqueueOutputDeliveries(tx, deps, run.id);
        await emitRunEvent(tx, deps.queue, 'WORKFLOW_RUN_FAILED', run.id, deps.onRunFinished);
        continue;
      }
      const d = await deps.deployments.request(tx, {
        serviceId: copy, action: 'DEPLOY', origin: 'GIT', triggeredBy: label, gitCommitId: pr.head_commit,
        log: [`Agent run for ${label} "${pr.title}" at ${pr.head_commit.slice(0, 12)}, against its preview environment`],
        metadata: {
          agentic_workflow_run_id: run.id,
          agent: { workflow_id: w.id, workflow_name: w.name },
          preview: { preview_id: pr.id, provider: pr.provider, pull_request_number: pr.pull_request_number, head_branch: pr.head_branch, head_commit: pr.head_commit },
        },
      });
      await repo.setRun(tx, run.id, { cloneEnvironmentId: pr.preview_environment_id, deploymentId: d.id });
      await emitRunEvent(tx, deps.queue, 'WORKFLOW_RUN_STARTED', run.id);
    }
    return started;
  });
}
