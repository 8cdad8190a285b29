// "A new commit on the tracked branch → one deployment of it", for webhooks and the poller alike:
// under the lock of the service's head row (git_push_heads), in the transaction that queues the
// deployment through the deployments service's `request` (origin GIT, triggered_by the pusher,
// the commit first in its log), so a commit seen twice (webhook and poller, a replay, two
// workers) deploys once. A closed deployment window (the environment's rule with auto_stop)
// leaves the commit waiting; releaseWaiting deploys it once the window opens. Each deployment a
// push queues is in the audit log (TRIGGER_DEPLOY, origin GIT).
import type { Db, Queryable } from '../../db/db.ts';
import { AppError } from '../../lib/errors.ts';
import { recordGitEvent } from '../audit/audit.service.ts';
import type { TargetType } from '../audit/audit.rules.ts';
import type { DeploymentsService } from '../deployments/deployments.service.ts';
import * as repo from './git-push.repo.ts';
import { commitLogLines, firstSight, repositoryKey, trackedSource, windowOpen, type PushFacts, type TrackedSource } from './git-push.rules.ts';

export interface TrackedService {
  id: string; organizationId: string; environmentId: string; type: string; name: string;
  source: TrackedSource; repositoryKey: string;
}

export interface SeenPush extends PushFacts {
  deliveryId: string | null;
  /** the caller's User-Agent (a provider's webhook client), for the audit log */
  userAgent: string | null;
}

export type PushOutcome = {
  service_id: string; service_name: string;
  /** deployed: a deployment was queued; waiting: for the deployment window; already_seen: this
   * commit was seen before; recorded: the poller's first sight of the commit the service runs (no
   * deployment); skipped: see reason (e.g. the poller and a service never deployed) */
  outcome: 'deployed' | 'waiting' | 'already_seen' | 'recorded' | 'skipped';
  deployment_id: string | null;
  reason: string | null;
};

/** the services that deploy on push, from candidate rows */
export function trackedServices(rows: repo.CandidateRow[]): TrackedService[] {
  const out: TrackedService[] = [];
  for (const r of rows) {
    const source = trackedSource(r.type, r.spec ?? {});
    const key = source ? repositoryKey(source.url) : null;
    if (source && key) out.push({ id: r.id, organizationId: r.organization_id, environmentId: r.environment_id, type: r.type, name: r.name, source, repositoryKey: key });
  }
  return out;
}

const outcome = (s: TrackedService, o: PushOutcome['outcome'], extra: { deployment_id?: string; reason?: string } = {}): PushOutcome =>
  ({ service_id: s.id, service_name: s.name, outcome: o, deployment_id: extra.deployment_id ?? null, reason: extra.reason ?? null });

/** what a deployment a push queues carries in its metadata (`metadata.git`) */
function pushMetadata(p: SeenPush): Record<string, unknown> {
  return {
    provider: p.provider, via: p.via, branch: p.branch, commit: p.commit, pusher: p.pusher, author: p.author,
    message: p.message?.split('\n')[0] ?? null, repository: p.repositoryUrl, delivery_id: p.deliveryId,
  };
}

async function audit(tx: Queryable, s: TrackedService, p: SeenPush, triggeredBy: string): Promise<void> {
  await recordGitEvent(tx, {
    eventType: 'TRIGGER_DEPLOY', targetType: s.type as TargetType, targetId: s.id, subTargetType: null, triggeredBy,
    change: JSON.stringify({ git_commit_id: p.commit, branch: p.branch, via: p.via, provider: p.provider }),
    organizationId: s.organizationId, userAgent: p.userAgent, requestId: p.deliveryId ?? '',
  });
}

export interface HeadDeps { deployments: DeploymentsService }

/** queues the deployment of `p.commit` for `s` (its log starting with the commit) and audits it */
async function deploy(tx: Queryable, deps: HeadDeps, s: TrackedService, p: SeenPush): Promise<PushOutcome> {
  const triggeredBy = p.via === 'poll' ? 'git poll' : (p.pusher ?? `${p.provider} push`);
  try {
    const d = await deps.deployments.request(tx, {
      serviceId: s.id, action: 'DEPLOY', gitCommitId: p.commit, origin: 'GIT', triggeredBy,
      metadata: { git: pushMetadata(p) }, log: commitLogLines(p),
    });
    await audit(tx, s, p, triggeredBy);
    return outcome(s, 'deployed', { deployment_id: d.id });
  } catch (err) {
    // refused before anything was written (service gone, environment being deleted)
    if (err instanceof AppError && err.status < 500) return outcome(s, 'skipped', { reason: err.message });
    throw err;
  }
}

/**
 * A head seen on the branch `services` track (all of the same repository and branch), inside
 * the caller's transaction. A commit already recorded does nothing; a new one queues one
 * deployment per service, or waits for a closed deployment window. The poller's first sight of
 * a service (`deployFirstSight` false) compares the head with what the service runs (firstSight).
 */
export async function headSeen(tx: Queryable, deps: HeadDeps, services: TrackedService[], p: SeenPush,
  opts: { deployFirstSight: boolean; now?: Date }): Promise<PushOutcome[]> {
  const out: PushOutcome[] = [];
  for (const s of services) {
    const head = await repo.lockHead(tx, s.id, s.organizationId, s.repositoryKey, s.source.branch);
    const sameSource = head.repository_key === s.repositoryKey && head.branch === s.source.branch;
    if (sameSource && head.last_commit === p.commit) {
      out.push(outcome(s, 'already_seen'));
      continue;
    }
    if ((!sameSource || head.last_commit === null) && !opts.deployFirstSight) {
      const sight = firstSight(await deps.deployments.sourceBaseline(tx, s.id), p.commit);
      if (sight.action === 'wait') {
        out.push(outcome(s, 'skipped', { reason: sight.reason }));
        continue;
      }
      if (sight.action === 'record') {
        await repo.setHead(tx, s.id, s.repositoryKey, s.source.branch, p.commit, null);
        out.push(outcome(s, 'recorded'));
        continue;
      }
    }
    if (!windowOpen(await repo.environmentWindow(tx, s.environmentId), opts.now ?? new Date())) {
      await repo.setHead(tx, s.id, s.repositoryKey, s.source.branch, p.commit, { commit: p.commit, push: { ...p } });
      out.push(outcome(s, 'waiting', { reason: 'outside the environment\'s deployment window (its rule has auto_stop): deploys when the window opens' }));
      continue;
    }
    const result = await deploy(tx, deps, s, p);
    if (result.outcome === 'deployed') await repo.setHead(tx, s.id, s.repositoryKey, s.source.branch, p.commit, null);
    out.push(result);
  }
  return out;
}

/** deploys the commits that waited for their window, for the services whose window is open `now` */
export async function releaseWaiting(db: Db, deps: HeadDeps,
  tracked: TrackedService[], organizationIds: readonly string[] | null, now: Date): Promise<PushOutcome[]> {
  const byId = new Map(tracked.map((s) => [s.id, s]));
  const out: PushOutcome[] = [];
  for (const w of await repo.waitingHeads(db, organizationIds)) {
    const s = byId.get(w.service_id);
    // a service edited to track another repository or branch since: its waiting commit is not its own
    if (!s || !w.waiting_commit || w.repository_key !== s.repositoryKey || w.branch !== s.source.branch) continue;
    if (!windowOpen(await repo.environmentWindow(db, w.environment_id), now)) continue;
    const push = { ...(w.waiting_push ?? {}), commit: w.waiting_commit } as unknown as SeenPush;
    const result = await db.transaction(async (tx) => {
      await repo.lockHead(tx, s.id, s.organizationId, s.repositoryKey, s.source.branch);
      if (!await repo.takeWaiting(tx, s.id, w.waiting_commit!)) return null;
      return deploy(tx, deps, s, push);
    });
    if (result) out.push(result);
  }
  return out;
}
