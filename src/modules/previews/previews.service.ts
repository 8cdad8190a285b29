// Preview environments (Qovery's auto_preview): a pull request against the branch that services
// with auto_preview track gets a throwaway copy of their environment (mode PREVIEW) running the
// pull request's head; new commits redeploy it, closing the pull request deletes it. This module
// owns the previews table, `onPullRequest` (what the git webhook route calls for pull-request
// events) and the read of an environment's previews (VIEWER and above, as the environment).
// Each source environment is handled in a transaction of its own holding its lock, so two
// deliveries of one event make one copy; the steps are in previews.steps.ts. A pull request from a
// fork waits for approval of each head commit (`approve`: DevOps and above; decision 0748).
import type { Db, Queryable } from '../../db/db.ts';
import { page, type PageInfo, type PageRequest } from '../../http/pagination.ts';
import { AppError, conflict, notFound } from '../../lib/errors.ts';
import { displayName, type Principal } from '../access/principal.ts';
import type { DeploymentsService } from '../deployments/deployments.service.ts';
import type { EnvironmentsService, RemovedEnvironments } from '../environments/environments.service.ts';
import type { ScopeService } from '../scope/scope.service.ts';
import * as repo from './previews.repo.ts';
import {
  capMessage, checkPullRequestEvent, gitSourceOf, previewedBy, repositoryKey, type PullRequestEvent, type PullRequestEventInput,
} from './previews.rules.ts';
import type { Preview } from './previews.schemas.ts';
import {
  awaitApproval, beforeEnvironmentsRemoved, closePreview, openPreview, refreshPreview, type PreviewOutcome, type StepDeps, type StepInput,
} from './previews.steps.ts';

export type { PullRequestEvent, PullRequestEventAction, PullRequestEventInput, PullRequestProvider } from './previews.rules.ts';
export type { PreviewOutcome } from './previews.steps.ts';

export interface PreviewsService {
  /**
   * A pull-request event: for each environment (of the event's organization when it names one)
   * whose services with auto_preview track `baseBranch` of the event's repository, opens,
   * refreshes or closes that environment's preview of the pull request. Idempotent: a repeated
   * event changes nothing; the close of a pull request berth has no preview of does nothing.
   * A malformed event is a 400. A pull request from a fork makes no copy and deploys nothing: its
   * preview is AWAITING_APPROVAL (again at each new commit) until `approve`.
   */
  onPullRequest(event: PullRequestEventInput): Promise<PreviewOutcome[]>;
  /**
   * Approves the head commit of a pull request from a fork (a role that may deploy the environment):
   * its preview opens (or its copy is redeployed) at that commit. 404 unknown, 403, 409 when the
   * preview is not AWAITING_APPROVAL or the environment has as many open previews as allowed.
   */
  approve(p: Principal, environmentId: string, previewId: string): Promise<Preview>;
  /** the environment's previews, open ones first, then the most recently changed */
  list(p: Principal, environmentId: string, req: PageRequest): Promise<{ results: Preview[]; pagination: PageInfo }>;
  /** before environments are removed (inside the deleting transaction): their preview copies go with them, previews of removed copies close */
  beforeEnvironmentsRemoved(tx: Queryable, removed: RemovedEnvironments): Promise<void>;
  /** one preview's facts (no authorization), or null: for the pull request's comment (src/modules/provider-status) */
  find(previewId: string): Promise<PreviewFacts | null>;
}

/** what other modules read of a preview */
interface PreviewFacts {
  id: string; organizationId: string; provider: string; repositoryUrl: string; number: number; state: repo.PreviewRow['state']; message: string | null;
  headCommit: string; previewEnvironmentName: string | null;
  title: string; body: string | null; author: string | null; headBranch: string; baseBranch: string;
  /** from a fork: each head commit waits for approval; `approvedCommit` the one last approved */
  fromFork: boolean; approvedCommit: string | null;
  sourceEnvironmentId: string; previewEnvironmentId: string | null;
}

/** what a preview shows of the reporting of its deployments to the provider (src/modules/provider-status) */
export type ProviderReporting = Preview['provider_status'];

export function createPreviewsService(deps: {
  db: Db; scope: ScopeService; environments: EnvironmentsService; deployments: DeploymentsService; services: StepDeps['services'];
  config: { previewMaxPerEnvironment: number; previewTtlHours: number };
  /** the reporting of each preview to its provider, by id (none: nothing reported yet) */
  reportingOf?: (previewIds: readonly string[]) => Promise<Map<string, NonNullable<ProviderReporting>>>;
  /** a preview closed (inside the closing transaction): its pull request's comment says so */
  onClosed?: StepDeps['onClosed'];
}): PreviewsService {
  const { db, scope } = deps;
  const stepDeps: StepDeps = {
    environments: deps.environments, deployments: deps.deployments, services: deps.services,
    maxPerEnvironment: deps.config.previewMaxPerEnvironment, ttlHours: deps.config.previewTtlHours, onClosed: deps.onClosed,
  };

  /** the event's step for one source environment, in its own transaction */
  async function forEnvironment(e: PullRequestEvent, keys: ReadonlySet<string>, environmentId: string, key: string): Promise<PreviewOutcome> {
    return db.transaction(async (tx) => {
      const source = await repo.lockSource(tx, environmentId);
      if (!source || source.deleting) {
        return { environment_id: environmentId, outcome: 'ignored', preview_id: null, preview_environment_id: null, deployment_ids: [], message: 'the environment is being deleted' } as PreviewOutcome;
      }
      const input: StepInput = { e, keys, repositoryKey: key, source, row: await repo.findLocked(tx, environmentId, key, e.number) };
      if (e.action === 'closed') return closePreview(tx, stepDeps, input);
      const row = input.row;
      const copy = row?.preview_environment_id && await repo.environmentExists(tx, row.preview_environment_id)
        ? { id: row.preview_environment_id, name: row.preview_environment_name ?? '' } : null;
      if (e.fork) {
        // a fork's copy follows only the head commit someone approved; any other commit waits (the copy kept as it is)
        const kept = copy && (row?.state === 'OPEN' || row?.state === 'AWAITING_APPROVAL') ? copy : null;
        if (row?.state === 'OPEN' && kept && row.approved_commit === e.headCommit && row.head_branch === e.headBranch) {
          return refreshPreview(tx, stepDeps, { ...input, row });
        }
        return awaitApproval(tx, stepDeps, input, kept);
      }
      if (row?.state === 'OPEN' && copy) return refreshPreview(tx, stepDeps, { ...input, row });
      return openPreview(tx, stepDeps, input);
    });
  }

  /** a step refused by a rule (e.g. a name or state conflict): the preview is FAILED, saying why */
  async function recordFailure(e: PullRequestEvent, environmentId: string, key: string, err: AppError): Promise<PreviewOutcome> {
    const message = `the preview environment could not be made: ${err.message}`;
    const row = await db.transaction(async (tx) => {
      const source = await repo.lockSource(tx, environmentId);
      if (!source) return null;
      const existing = await repo.findLocked(tx, environmentId, key, e.number);
      if (existing?.state === 'OPEN') return existing;
      const facts = {
        title: e.title, author: e.author, headBranch: e.headBranch, headCommit: e.headCommit, baseBranch: e.baseBranch, repositoryUrl: e.repositoryUrls[0] ?? '',
        body: e.body, fromFork: e.fork,
      };
      return existing
        ? repo.update(tx, existing.id, { ...facts, state: 'FAILED', message })
        : repo.insert(tx, {
          ...facts, organizationId: source.organization_id, sourceId: environmentId, provider: e.provider, repositoryKey: key, number: e.number,
          state: 'FAILED', message, previewEnvironment: null,
        });
    });
    return { environment_id: environmentId, outcome: 'failed', preview_id: row?.id ?? null, preview_environment_id: null, deployment_ids: [], message };
  }

  /** the event a preview's row stands for (what an approval opens or refreshes the preview with) */
  function eventOf(r: repo.PreviewRow): PullRequestEvent {
    return {
      provider: r.provider as PullRequestEvent['provider'], action: 'synchronize', number: r.pull_request_number, title: r.title,
      repositoryUrls: [r.repository_url], baseBranch: r.base_branch, headBranch: r.head_branch, headCommit: r.head_commit, author: r.author,
      organizationId: r.organization_id, fork: r.from_fork, body: r.body,
    };
  }

  return {
    beforeEnvironmentsRemoved: (tx, removed) => beforeEnvironmentsRemoved(tx, deps.environments, removed),
    async find(previewId) {
      const r = await repo.findById(db, previewId);
      return r ? {
        id: r.id, organizationId: r.organization_id, provider: r.provider, repositoryUrl: r.repository_url, number: r.pull_request_number,
        state: r.state, message: r.message, headCommit: r.head_commit, previewEnvironmentName: r.preview_environment_name,
        title: r.title, body: r.body, author: r.author, headBranch: r.head_branch, baseBranch: r.base_branch, fromFork: r.from_fork,
        approvedCommit: r.approved_commit, sourceEnvironmentId: r.source_environment_id, previewEnvironmentId: r.preview_environment_id,
      } : null;
    },
    async onPullRequest(event) {
      const { event: e, repositoryKeys } = checkPullRequestEvent(event);
      // the environments whose services this pull request previews, with the repository's key as they spell it
      const byEnvironment = new Map<string, string>();
      for (const s of await repo.candidateServices(db, e.organizationId ?? null)) {
        if (byEnvironment.has(s.environment_id) || !previewedBy(s, repositoryKeys, e.baseBranch)) continue;
        byEnvironment.set(s.environment_id, repositoryKey(gitSourceOf(s.type, s.spec)!.url)!);
      }
      // and the environments that have a preview of it already (auto_preview turned off since, the base branch changed…):
      // an open preview keeps following its pull request until it closes
      const states = e.action === 'closed' ? ['OPEN', 'REFUSED', 'FAILED', 'AWAITING_APPROVAL'] : ['OPEN', 'AWAITING_APPROVAL'];
      for (const r of await repo.environmentsWithPreview(db, [...repositoryKeys], e.number, e.organizationId ?? null, states)) {
        if (!byEnvironment.has(r.source_environment_id)) byEnvironment.set(r.source_environment_id, r.repository_key);
      }
      const outcomes: PreviewOutcome[] = [];
      for (const [environmentId, key] of byEnvironment) {
        try {
          outcomes.push(await forEnvironment(e, repositoryKeys, environmentId, key));
        } catch (err) {
          if (!(err instanceof AppError) || err.status >= 500 || e.action === 'closed') throw err;
          outcomes.push(await recordFailure(e, environmentId, key, err));
        }
      }
      return outcomes;
    },
    async approve(p, environmentId, previewId) {
      await scope.environment(p, environmentId, 'write');
      const approver = displayName(p);
      const row = await db.transaction(async (tx) => {
        const source = await repo.lockSource(tx, environmentId);
        if (!source) throw notFound('Environment');
        const found = await repo.findByIdLocked(tx, previewId);
        if (!found || found.source_environment_id !== environmentId) throw notFound('Preview');
        if (found.state !== 'AWAITING_APPROVAL') {
          throw conflict(`The preview of pull request #${found.pull_request_number} is ${found.state}, not AWAITING_APPROVAL: there is nothing to approve`);
        }
        if (source.deleting) throw conflict(`Environment "${source.name}" is being deleted`);
        const e = eventOf(found);
        const copyExists = found.preview_environment_id !== null && await repo.environmentExists(tx, found.preview_environment_id);
        if (!copyExists && await repo.countOpen(tx, source.id, found.id) >= stepDeps.maxPerEnvironment) {
          throw conflict(capMessage(e, source.name, stepDeps.maxPerEnvironment, 'then approve it again'));
        }
        const approved = await repo.update(tx, found.id, { approved: { commit: found.head_commit, by: approver } });
        const input: StepInput = { e, keys: new Set([found.repository_key]), repositoryKey: found.repository_key, source, row: approved, actor: approver };
        // a copy made at an earlier approved commit: its previewed services redeployed at this one; else a new copy
        if (copyExists) await refreshPreview(tx, stepDeps, { ...input, row: { ...approved, head_commit: found.approved_commit ?? '' } });
        else await openPreview(tx, stepDeps, input);
        return (await repo.findById(tx, found.id))!;
      });
      const reporting = deps.reportingOf ? await deps.reportingOf([row.id]) : new Map();
      return { ...repo.toPreview(row), provider_status: reporting.get(row.id) ?? null };
    },
    async list(p, environmentId, req) {
      await scope.environment(p, environmentId, 'read');
      const { items, total } = await repo.listOf(db, environmentId, req.limit, req.offset);
      const reporting = deps.reportingOf ? await deps.reportingOf(items.map((i) => i.id)) : new Map();
      return page(req, items.map((i) => ({ ...i, provider_status: reporting.get(i.id) ?? null })), total);
    },
  };
}
