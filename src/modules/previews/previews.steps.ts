// The three things a pull-request event does to one source environment, each inside the
// transaction that holds the source environment's lock: open a preview (a copy of mode PREVIEW,
// the previewed services switched to the pull request's branch, every service deployed, the
// previewed ones at the head commit), refresh it (new commits: the previewed services redeployed
// at the new head), close it (the copy deleted through the environment removal path, which
// uninstalls what it ran). Every step is in the audit log (sub-target PREVIEW of the source
// environment, origin GIT). Also what keeps the rows true when copies or their sources are
// deleted some other way (run before every environment removal). A pull request from a fork
// waits for approval instead (awaitApproval): no copy, no deployment, until someone who may deploy
// approves its head commit; the approval then runs the open or refresh step (decision 0748).
import type { Queryable } from '../../db/db.ts';
import { recordGitEvent } from '../audit/audit.service.ts';
import type { DeploymentsService } from '../deployments/deployments.service.ts';
import type { EnvironmentsService, RemovedEnvironments } from '../environments/environments.service.ts';
import type { ServicesService } from '../services/services.service.ts';
import * as repo from './previews.repo.ts';
import {
  approvalMessage, capMessage, deploymentOrder, gitSourceOf, previewedBy, previewEnabled, previewEnvironmentName, previewExpiry, previewLogLines,
  pullRequestLabel, repositoryKey, type PullRequestEvent,
} from './previews.rules.ts';

export interface StepDeps {
  environments: EnvironmentsService; deployments: DeploymentsService; services: Pick<ServicesService, 'switchPreviewBranch'>;
  maxPerEnvironment: number; ttlHours: number; now?: () => Date;
  /** a preview closed, inside the closing transaction (the pull request's comment says so) */
  onClosed?: (tx: Queryable, preview: { id: string; organizationId: string }) => Promise<void>;
}

/** what one event did to one source environment (the webhook's answer lists them) */
export interface PreviewOutcome {
  environment_id: string;
  outcome: 'created' | 'redeployed' | 'unchanged' | 'refused' | 'failed' | 'closed' | 'ignored' | 'awaiting_approval';
  preview_id: string | null;
  preview_environment_id: string | null;
  deployment_ids: string[];
  message: string | null;
}

export interface StepInput {
  e: PullRequestEvent; keys: ReadonlySet<string>; repositoryKey: string; source: repo.SourceRow; row: repo.PreviewRow | null;
  /** who made the step happen when it is not the pull request's event: the approver of a fork's head commit */
  actor?: string;
}

const triggeredBy = (input: Pick<StepInput, 'e' | 'actor'>) => input.actor ?? input.e.author ?? pullRequestLabel({ ...input.e, title: '' });

const result = (s: repo.SourceRow, outcome: PreviewOutcome['outcome'], row: repo.PreviewRow | null, extra: Partial<PreviewOutcome> = {}): PreviewOutcome => ({
  environment_id: s.id, outcome, preview_id: row?.id ?? null, preview_environment_id: row?.preview_environment_id ?? null,
  deployment_ids: [], message: row?.message ?? null, ...extra,
});

async function audit(tx: Queryable, s: repo.SourceRow, eventType: 'CREATE' | 'UPDATE' | 'DELETE', row: repo.PreviewRow,
  input: Pick<StepInput, 'e' | 'actor'>, deploymentIds: string[] = []): Promise<void> {
  await recordGitEvent(tx, {
    eventType, targetType: 'ENVIRONMENT', targetId: s.id, subTargetType: 'PREVIEW',
    triggeredBy: triggeredBy(input),
    change: JSON.stringify({
      preview_id: row.id, pull_request_number: row.pull_request_number, head_branch: row.head_branch, head_commit: row.head_commit, state: row.state,
      message: row.message, preview_environment_id: row.preview_environment_id, preview_environment_name: row.preview_environment_name, deployment_ids: deploymentIds,
      from_fork: row.from_fork, approved_commit: row.approved_commit, approved_by: row.approved_by,
    }),
    organizationId: s.organization_id, userAgent: null, requestId: '',
  });
}

/** the row with the event's facts and the given state (created when the pull request is new here) */
async function save(tx: Queryable, input: StepInput, state: repo.PreviewRow['state'], message: string | null,
  previewEnvironment: { id: string; name: string } | null | undefined): Promise<repo.PreviewRow> {
  const { e, source, row } = input;
  const facts = {
    title: e.title, author: e.author, headBranch: e.headBranch, headCommit: e.headCommit, baseBranch: e.baseBranch, repositoryUrl: e.repositoryUrls[0] ?? '',
    body: e.body, fromFork: e.fork,
  };
  if (row) return repo.update(tx, row.id, { ...facts, state, message, ...(previewEnvironment !== undefined ? { previewEnvironment } : {}) });
  return repo.insert(tx, {
    ...facts, organizationId: source.organization_id, sourceId: source.id, provider: e.provider, repositoryKey: input.repositoryKey,
    number: e.number, state, message, previewEnvironment: previewEnvironment ?? null,
  });
}

function deployInput(input: Pick<StepInput, 'e' | 'actor'>, serviceId: string, previewed: boolean, row: { id: string }) {
  const { e } = input;
  return {
    serviceId, action: 'DEPLOY' as const, gitCommitId: previewed ? e.headCommit : null, origin: 'GIT',
    triggeredBy: triggeredBy(input), log: previewLogLines(e, previewed, input.actor ?? null),
    metadata: { preview: { preview_id: row.id, provider: e.provider, pull_request_number: e.number, head_branch: e.headBranch, head_commit: e.headCommit } },
  };
}

/** a new copy for the pull request, deployed; or REFUSED when the environment has as many open previews as allowed */
export async function openPreview(tx: Queryable, deps: StepDeps, input: StepInput): Promise<PreviewOutcome> {
  const { e, source, keys } = input;
  if (await repo.countOpen(tx, source.id, input.row?.id ?? null) >= deps.maxPerEnvironment) {
    const refused = await save(tx, input, 'REFUSED', capMessage(e, source.name, deps.maxPerEnvironment), null);
    await audit(tx, source, input.row ? 'UPDATE' : 'CREATE', refused, input);
    return result(source, 'refused', refused);
  }
  const now = deps.now?.() ?? new Date();
  const name = previewEnvironmentName(source.name, e.number, await repo.namesTaken(tx, source.project_id, source.name.slice(0, 200)));
  const copy = await deps.environments.cloneForSystem(tx, source.id, { name, mode: 'PREVIEW', expiresAt: previewExpiry(now, deps.ttlHours) });
  const services = await repo.servicesOf(tx, copy.id);
  const previewed = new Set(services.filter((s) => previewedBy(s, keys, e.baseBranch)).map((s) => s.id));
  for (const s of services) if (previewed.has(s.id)) await deps.services.switchPreviewBranch(tx, s.id, s.type, e.headBranch);
  const row = await save(tx, input, 'OPEN', null, { id: copy.id, name: copy.name });
  const deploymentIds: string[] = [];
  for (const s of deploymentOrder(services)) deploymentIds.push((await deps.deployments.request(tx, deployInput(input, s.id, previewed.has(s.id), row))).id);
  await audit(tx, source, input.row ? 'UPDATE' : 'CREATE', row, input, deploymentIds);
  return result(source, 'created', row, { deployment_ids: deploymentIds });
}

/** new commits (or a repeated "opened"): the previewed services of the copy redeployed at the new head */
export async function refreshPreview(tx: Queryable, deps: StepDeps, input: StepInput & { row: repo.PreviewRow }): Promise<PreviewOutcome> {
  const { e, source, row, keys } = input;
  const copyId = row.preview_environment_id!;
  await deps.environments.setPreviewExpiry(tx, copyId, previewExpiry(deps.now?.() ?? new Date(), deps.ttlHours));
  if (row.head_commit === e.headCommit && row.head_branch === e.headBranch) {
    const same = await save(tx, input, 'OPEN', row.message, undefined);
    return result(source, 'unchanged', same);
  }
  // the copy's previewed services: from the repository, on the pull request's branch (or still on the base)
  const previewed = (await repo.servicesOf(tx, copyId)).filter((s) => {
    const src = gitSourceOf(s.type, s.spec ?? {});
    const key = src ? repositoryKey(src.url) : null;
    return src && key && keys.has(key) && [row.head_branch, e.headBranch, e.baseBranch].includes(src.branch)
      && previewEnabled(s.spec ?? {}, s.environment_auto_preview);
  });
  const saved = await save(tx, input, 'OPEN', null, undefined);
  const deploymentIds: string[] = [];
  for (const s of previewed) {
    if (gitSourceOf(s.type, s.spec)?.branch !== e.headBranch) await deps.services.switchPreviewBranch(tx, s.id, s.type, e.headBranch);
    deploymentIds.push((await deps.deployments.request(tx, deployInput(input, s.id, true, saved))).id);
  }
  await audit(tx, source, 'UPDATE', saved, input, deploymentIds);
  return result(source, 'redeployed', saved, { deployment_ids: deploymentIds });
}

/**
 * A pull request from a fork at a head commit nobody approved: no copy made, nothing deployed; a
 * copy made at an earlier approved commit stays as it was (its expiry pushed back: the pull request
 * is alive). The message says who may approve and how. Unchanged when it already waits at this commit.
 */
export async function awaitApproval(tx: Queryable, deps: StepDeps, input: StepInput, copy: { id: string; name: string } | null): Promise<PreviewOutcome> {
  const { e, source, row } = input;
  if (copy) await deps.environments.setPreviewExpiry(tx, copy.id, previewExpiry(deps.now?.() ?? new Date(), deps.ttlHours));
  const same = row?.state === 'AWAITING_APPROVAL' && row.head_commit === e.headCommit && row.head_branch === e.headBranch;
  const saved = await save(tx, input, 'AWAITING_APPROVAL', row?.message ?? null, undefined);
  const message = approvalMessage(e, { id: source.id, name: source.name }, saved.id,
    copy && saved.approved_commit ? { name: copy.name, approvedCommit: saved.approved_commit } : null);
  const waiting = await repo.update(tx, saved.id, { message });
  if (!same) await audit(tx, source, row ? 'UPDATE' : 'CREATE', waiting, input);
  return result(source, same ? 'unchanged' : 'awaiting_approval', waiting);
}

/** the pull request closed (merged or not): its copy deleted with everything it ran */
export async function closePreview(tx: Queryable, deps: StepDeps, input: StepInput): Promise<PreviewOutcome> {
  const { e, source, row } = input;
  if (!row) return result(source, 'ignored', null, { message: `${pullRequestLabel(e)} has no preview of environment "${source.name}"` });
  if (row.state === 'CLOSED') return result(source, 'ignored', row);
  const copyId = row.preview_environment_id;
  const message = copyId ? `${pullRequestLabel(e)} was closed: its preview environment was deleted` : `${pullRequestLabel(e)} was closed`;
  // the row first: the removal hook below then finds no open preview of this copy to close
  await repo.update(tx, row.id, { state: 'CLOSED', message });
  if (copyId) {
    await deps.environments.prepareRemoval(tx, source.organization_id, [copyId]);
    await deps.environments.removePreview(tx, copyId);
  }
  const closed = await repo.update(tx, row.id, {});
  await deps.onClosed?.(tx, { id: row.id, organizationId: row.organization_id });
  await audit(tx, source, 'DELETE', closed, input);
  return result(source, 'closed', closed, { preview_environment_id: copyId });
}

/**
 * Before environments are removed: copies of an environment being deleted go with it (in the same
 * transaction); a copy deleted some other way (by hand, its expiry, its project's deletion)
 * closes its preview, saying how.
 */
export async function beforeEnvironmentsRemoved(tx: Queryable, environments: Pick<EnvironmentsService, 'prepareRemoval' | 'removePreview'>,
  { organizationId, environmentIds }: RemovedEnvironments): Promise<void> {
  const copies = await repo.openCopiesOf(tx, environmentIds);
  if (copies.length > 0) {
    const ids = copies.map((c) => c.preview_environment_id);
    await repo.closeRemoved(tx, ids, 'the environment it previews was deleted, and the preview environment with it');
    await environments.prepareRemoval(tx, organizationId, ids);
    for (const id of ids) await environments.removePreview(tx, id);
  }
  await repo.closeRemoved(tx, environmentIds, null);
}
