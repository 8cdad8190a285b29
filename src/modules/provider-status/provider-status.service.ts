// Status on the provider (issue 40, decision 0740). A deployment a push or a pull request's
// preview requested is reported on its commit at the git provider (GitHub, GitLab, Gitea or
// Forgejo, Bitbucket) with the service's git token, stage by stage (queued, in progress, done),
// and each pull request with a preview has one comment listing its previewed services, their
// URLs and states, edited in place. The composition root calls `onDeployment` when a deployment
// is requested, starts and settles, and `onPreviewClosed` when a preview closes, inside those
// transactions: they only write a row and enqueue a task, so reporting can never hold up or fail
// a deployment. The tasks post (providers.report, providers.comment): one worker per row at a
// time (a lease), each stage once and in order; an error is recorded and retried with back-off;
// a 401/403/404 records that the token may not write there and nothing more is posted with it
// until the token is edited (the preview's `provider_status` says why).
import type { Db, Queryable } from '../../db/db.ts';
import type { Sealer } from '../../lib/crypto.ts';
import type { TaskQueue } from '../../queue/queue.ts';
import type { DeploymentRecord, DeploymentsService } from '../deployments/deployments.service.ts';
import { repositoryKey } from '../git-push/git-push.rules.ts';
import { gitApiCredential } from '../git-tokens/git-credentials.ts';
import type { PreviewsService } from '../previews/previews.service.ts';
import { createComment, editComment, postStatus, type Answer, type ProviderTarget, type TransportOptions } from './clients.ts';
import * as repo from './provider-status.repo.ts';
import {
  agentRunOf, apiBase, classifyAnswer, describeVerdict, type AgentCommentRow, deniedReason, DEFAULT_RETRY_SCHEDULE, describeOutcome, familyOf, familyOfToken, outcomeAt, renderComment, reportOrigin,
  repositoryPath, retryDelay, stageOf, stagesToPost, type CommentRow, type ProviderFamily, type RetrySchedule,
} from './provider-status.rules.ts';


/** what berth knows of a service to report it: its name and the repository and git token it builds from */
export interface ServiceFacts { name: string; repositoryUrl: string | null; gitTokenId: string | null }

export interface ProviderStatusService {
  /** a deployment requested, started or settled (inside that transaction): queues the post of its new stage when it is reported */
  onDeployment(tx: Queryable, d: DeploymentRecord): Promise<void>;
  /** a preview closed (inside that transaction): its pull request's comment is edited to say so */
  onPreviewClosed(tx: Queryable, preview: { id: string; organizationId: string }): Promise<void>;
  /** the providers.report task: posts the stages of the deployment not posted yet */
  report(deploymentId: string): Promise<void>;
  /** the providers.comment task: creates or edits the pull request's comment */
  comment(previewId: string): Promise<void>;
  /** what previews show of their reporting */
  reportingOf(previewIds: readonly string[]): Promise<Map<string, repo.PreviewReporting>>;
}

export interface AgentRunFacts { status: string; result: string | null; message: string | null; url: string | null }

interface Resolved { target: ProviderTarget; tokenId: string; key: string; changedAt: string; repositoryUrl: string }

const RETRY_SOON_MS = 1_000;

export function createProviderStatusService(deps: {
  db: Db; sealer: Sealer; queue: TaskQueue;
  deployments: Pick<DeploymentsService, 'findRecord'>;
  previews: Pick<PreviewsService, 'find'>;
  serviceFacts(serviceId: string): Promise<ServiceFacts | null>;
  serviceUrl(serviceId: string): Promise<string | null>;
  /** an agent run per pull request (its verdict is reported): its status, final answer, message and where berth shows it */
  agentRun?(runId: string): Promise<AgentRunFacts | null>;
  transport: TransportOptions;
  retries?: Partial<RetrySchedule>;
}): ProviderStatusService {
  const { db, queue } = deps;
  const schedule: RetrySchedule = { ...DEFAULT_RETRY_SCHEDULE, ...deps.retries };
  const later = (ms: number) => new Date(Date.now() + ms);

  /** the provider, API, repository and token to post with, or why nothing is posted */
  async function resolve(organizationId: string, family: ProviderFamily | null, repositoryUrl: string | null, tokenId: string | null): Promise<Resolved | { skip: string }> {
    if (!repositoryUrl) return { skip: 'the service builds from no git repository berth can name' };
    if (!tokenId) return { skip: 'the service has no git token: berth posts statuses and comments with the service\'s git token (git_repository.git_token_id)' };
    const credential = await gitApiCredential(db, deps.sealer, organizationId, tokenId);
    if (!credential) return { skip: `git token ${tokenId} no longer exists` };
    const f = family ?? familyOfToken(credential.type);
    const path = repositoryPath(repositoryUrl);
    const api = apiBase(f, repositoryUrl, credential.gitApiUrl);
    const key = repositoryKey(repositoryUrl);
    if (!path || !api || !key) return { skip: `berth cannot tell the repository of ${repositoryUrl} at the provider` };
    const denied = await repo.denial(db, tokenId, key, credential.changedAt);
    if (denied) return { skip: denied };
    return { target: { family: f, api, repository: path.path, token: credential.token }, tokenId, key, changedAt: credential.changedAt, repositoryUrl };
  }

  /** a refused, failed or successful answer recorded; true when posting may go on */
  async function settleAnswer(a: Answer, r: Resolved, record: (c: { ok: boolean; denied: string | null; error: string | null }) => Promise<void>): Promise<'ok' | 'denied' | 'retry'> {
    const verdict = classifyAnswer(a.status);
    if (verdict === 'denied') {
      const reason = deniedReason(r.target.family, a.status!, r.target.repository);
      await repo.recordDenial(db, r.tokenId, r.key, r.changedAt, reason);
      await record({ ok: false, denied: reason, error: a.error });
    } else await record({ ok: verdict === 'ok', denied: null, error: verdict === 'ok' ? null : a.error ?? 'no answer' });
    return verdict;
  }

  async function postStages(row: repo.ReportRow): Promise<void> {
    let posted = row.posted;
    let externalId = row.external_id;
    let attempts = row.attempts;
    for (;;) {
      const d = await deps.deployments.findRecord(db, row.deployment_id);
      const origin = d ? reportOrigin(d) : null;
      if (!d || !origin) return;
      const stages = stagesToPost(posted, stageOf(d));
      if (stages.length === 0) return;
      const agent = agentRunOf(d);
      const preview = row.preview_id ? await deps.previews.find(row.preview_id) : null;
      // an agent run's workflow builds from nothing: its verdict goes to the pull request's repository, with the preview's token
      const facts = agent && preview
        ? { name: agent.workflowName, repositoryUrl: preview.repositoryUrl, gitTokenId: (await repo.reportsOfPreview(db, preview.id)).find((x) => x.git_token_id && x.deployment_id !== row.deployment_id)?.git_token_id ?? null }
        : await deps.serviceFacts(row.service_id);
      const r = await resolve(row.organization_id, origin.provider, facts?.repositoryUrl ?? row.repository_url, facts ? facts.gitTokenId : row.git_token_id);
      if ('skip' in r) {
        await repo.updateReport(db, row.deployment_id, { skipped: r.skip });
        if (row.preview_id) await repo.updatePullRequest(db, row.preview_id, { reason: r.skip });
        return;
      }
      if (facts) await repo.updateReport(db, row.deployment_id, { gitTokenId: r.tokenId, repositoryUrl: r.repositoryUrl });
      const run = agent && deps.agentRun ? await deps.agentRun(agent.runId) : null;
      const url = agent ? run?.url ?? null : await deps.serviceUrl(row.service_id);
      for (const stage of stages) {
        const outcome = outcomeAt(stage, d.status);
        const a = await postStatus(r.target, deps.transport, agent
          // the verdict: a check of the same name on every commit (a branch rule can require it)
          ? { commit: row.commit_sha, outcome, description: describeVerdict(outcome, run), url, deploymentId: null, context: `berth/agent/${agent.workflowName}`, transient: false, check: true }
          : {
            commit: row.commit_sha, outcome, description: describeOutcome(outcome, d.message), url, deploymentId: externalId,
            context: preview ? `${preview.previewEnvironmentName ?? `pr-${preview.number}`}/${row.service_name}` : `berth/${row.service_name}`,
            transient: preview !== null,
          });
        if (a.id && r.target.family === 'GITHUB' && !agent) externalId = a.id;
        const verdict = await settleAnswer(a, r, async ({ ok, denied, error }) => {
          if (ok) {
            posted = stage;
            attempts = 0;
            await repo.updateReport(db, row.deployment_id, { posted: stage, externalId, attempts: 0, lastError: null, skipped: null, postedNow: true });
          } else {
            attempts += denied ? 0 : 1;
            await repo.updateReport(db, row.deployment_id, { externalId, attempts, lastError: error, ...(denied ? { skipped: denied } : {}) });
          }
          if (row.preview_id) {
            await repo.updatePullRequest(db, row.preview_id, ok ? { reason: null, postedNow: true } : { lastError: error, ...(denied ? { reason: denied } : {}) });
          }
        });
        if (verdict === 'ok') {
          if (row.preview_id) await queue.enqueue(db, 'providers.comment', { previewId: row.preview_id });
          continue;
        }
        if (verdict === 'retry') {
          const delay = retryDelay(attempts, schedule);
          if (delay !== null) await queue.enqueue(db, 'providers.report', { deploymentId: row.deployment_id }, { startAfter: later(delay) });
        }
        return;
      }
    }
  }

  async function writeComment(row: repo.PullRequestRow): Promise<void> {
    const preview = await deps.previews.find(row.preview_id);
    if (!preview) return;
    const reports = await repo.reportsOfPreview(db, row.preview_id);
    const source = reports.find((x) => x.git_token_id) ?? null;
    const tokenId = source?.git_token_id ?? row.git_token_id;
    const repositoryUrl = source?.repository_url ?? row.repository_url;
    // nothing posted for this pull request yet (no status went out): no comment either
    if (!tokenId || !repositoryUrl || (row.comment_id === null && preview.state !== 'OPEN')) return;
    const r = await resolve(row.organization_id, familyOf(preview.provider), repositoryUrl, tokenId);
    if ('skip' in r) {
      await repo.updatePullRequest(db, row.preview_id, { reason: r.skip });
      return;
    }
    const rows: CommentRow[] = [];
    const agents = new Map<string, AgentCommentRow>();
    for (const rep of reports.sort((a, b) => a.service_name.localeCompare(b.service_name))) {
      const d = await deps.deployments.findRecord(db, rep.deployment_id);
      const agent = d ? agentRunOf(d) : null;
      if (agent) {
        // the newest run of each workflow (reportsOfPreview gives each service's newest: a new commit's run replaces the stale one's line)
        const run = deps.agentRun ? await deps.agentRun(agent.runId) : null;
        agents.set(agent.workflowName, { workflow: agent.workflowName, status: run?.status ?? d!.status, verdict: run?.status === 'SUCCEEDED' ? run.result : run?.message ?? null, commit: rep.commit_sha, url: run?.url ?? null });
      } else if (d) rows.push({ service: rep.service_name, url: await deps.serviceUrl(rep.service_id), status: d.status, commit: rep.commit_sha, message: d.message });
    }
    const body = renderComment({
      environmentName: preview.previewEnvironmentName, state: preview.state, message: preview.message, headCommit: preview.headCommit, rows, agents: [...agents.values()],
    });
    let a = row.comment_id ? await editComment(r.target, deps.transport, preview.number, row.comment_id, body) : null;
    // the comment was deleted at the provider: a new one
    if (!a || a.status === 404) a = await createComment(r.target, deps.transport, preview.number, body);
    const verdict = await settleAnswer(a, r, async ({ ok, denied, error }) => {
      await repo.updatePullRequest(db, row.preview_id, ok
        ? { commentId: a.id, gitTokenId: r.tokenId, repositoryUrl: r.repositoryUrl, reason: null, attempts: 0, postedNow: true }
        : { lastError: error, attempts: row.attempts + (denied ? 0 : 1), ...(denied ? { reason: denied } : {}) });
    });
    if (verdict === 'retry') {
      const delay = retryDelay(row.attempts + 1, schedule);
      if (delay !== null) await queue.enqueue(db, 'providers.comment', { previewId: row.preview_id }, { startAfter: later(delay) });
    }
  }

  return {
    async onDeployment(tx, d) {
      const origin = reportOrigin(d);
      if (!origin) return;
      await repo.ensureReport(tx, {
        deploymentId: d.id, organizationId: d.organization_id, previewId: origin.previewId, serviceId: d.service_id, serviceName: d.service_name, commit: origin.commit,
      });
      if (origin.previewId) await repo.ensurePullRequest(tx, origin.previewId, d.organization_id);
      await queue.enqueue(tx, 'providers.report', { deploymentId: d.id });
    },
    async onPreviewClosed(tx, preview) {
      await repo.ensurePullRequest(tx, preview.id, preview.organizationId);
      await queue.enqueue(tx, 'providers.comment', { previewId: preview.id });
    },
    async report(deploymentId) {
      const { row, held } = await repo.claimReport(db, deploymentId);
      if (!row) {
        // another worker posts for it now: look again once it is done, so no stage is missed
        if (held) await queue.enqueue(db, 'providers.report', { deploymentId }, { startAfter: later(RETRY_SOON_MS) });
        return;
      }
      try { await postStages(row); } finally { await repo.releaseReport(db, deploymentId); }
    },
    async comment(previewId) {
      const { row, held } = await repo.claimPullRequest(db, previewId);
      if (!row) {
        if (held) await queue.enqueue(db, 'providers.comment', { previewId }, { startAfter: later(RETRY_SOON_MS) });
        return;
      }
      try { await writeComment(row); } finally { await repo.releasePullRequest(db, previewId); }
    },
    reportingOf: (previewIds) => repo.reportingOf(db, previewIds),
  };
}
