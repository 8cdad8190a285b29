// Polling for hosts that cannot call berth's git webhook (a laptop, a private network): one round
// checks each repository URL + branch that services with auto_deploy track, once whatever the
// number of services, with `git ls-remote`, a few at a time; a new head goes through the same
// step as a webhook's push (git-push.heads.ts), so a commit both see deploys once. A repository
// that fails is tried again after a back-off that doubles per failure (at most an hour), and the
// log line says which repository and why. Each round also does the housekeeping (forgotten heads,
// old delivery ids) and deploys commits whose deployment window has opened.
import type { Config } from '../../config/config.ts';
import type { Platform } from '../../platform.ts';
import { redactUrls } from '../../lib/net.ts';
import { backoffSeconds } from './git-push.rules.ts';
import type { GitPushService, PushOutcome, TrackedService } from './git-push.service.ts';
import { lsRemoteHead } from './ls-remote.ts';
import { resolveRepositoryToken } from './repository-token.ts';

export interface PollSettings {
  /** seconds between rounds; 0: no ls-remote (the round still releases waiting commits) */
  readonly intervalSeconds: number;
  readonly concurrency: number;
  readonly allowLocalGit: boolean;
}

export function pollSettings(config: Pick<Config, 'gitPollIntervalSeconds' | 'gitPollConcurrency' | 'engineAllowLocalGit'>): PollSettings {
  return { intervalSeconds: config.gitPollIntervalSeconds, concurrency: config.gitPollConcurrency, allowLocalGit: config.engineAllowLocalGit };
}

export interface PollRound {
  repositories: number;
  checked: number;
  failed: number;
  /** repositories skipped this round: still backing off after a failure */
  waiting: number;
  outcomes: PushOutcome[];
  released: PushOutcome[];
}

type Ctx = Pick<Platform, 'db' | 'sealer' | 'logger'> & { services: { gitPush: GitPushService } };

/** the repository + branch (+ credential) groups of tracked services: one ls-remote each */
function groupByBranch(tracked: TrackedService[]): Map<string, TrackedService[]> {
  const groups = new Map<string, TrackedService[]>();
  for (const s of tracked) {
    const key = `${s.source.url}\n${s.source.branch}\n${s.source.gitTokenId ?? ''}`;
    groups.set(key, [...(groups.get(key) ?? []), s]);
  }
  return groups;
}

/** runs `fn` over `items`, at most `limit` at a time */
async function eachLimited<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await fn(items[next++]!);
  }));
}

export interface GitPoller {
  /** one round; organizationIds limits it to those organizations (null: all) */
  round(signal: AbortSignal, now?: Date): Promise<PollRound>;
}

export function createGitPoller(ctx: Ctx, settings: PollSettings, organizationIds: readonly string[] | null = null): GitPoller {
  const svc = ctx.services.gitPush;
  const failures = new Map<string, { count: number; nextAt: number }>();

  async function check(services: TrackedService[], key: string, round: PollRound, signal: AbortSignal): Promise<void> {
    const { url, branch, gitTokenId } = services[0]!.source;
    const shown = redactUrls(url);
    try {
      const credential = await resolveRepositoryToken(ctx, services[0]!.organizationId, gitTokenId);
      const commit = await lsRemoteHead({ url, branch, token: credential?.token ?? null, username: credential?.username ?? null }, { allowLocal: settings.allowLocalGit, signal });
      round.checked++;
      if (failures.delete(key)) ctx.logger.info({ repository: shown, branch }, `git poll: ${shown} (${branch}) answers again`);
      round.outcomes.push(...await svc.headPolled(services, {
        provider: 'git', via: 'poll', branch, commit, pusher: null, author: null, message: null, repositoryUrl: shown,
        deliveryId: null, userAgent: 'berth git poller',
      }));
    } catch (err) {
      if (signal.aborted) return;
      round.failed++;
      const count = (failures.get(key)?.count ?? 0) + 1;
      const wait = backoffSeconds(Math.max(settings.intervalSeconds, 1), count);
      failures.set(key, { count, nextAt: Date.now() + wait * 1000 });
      ctx.logger.warn({ repository: shown, branch, failures: count, retryInSeconds: wait, services: services.map((s) => s.id) },
        `git poll: ${shown} (${branch}) failed: ${redactUrls((err as Error).message)}; next try in ${wait} s`);
    }
  }

  return {
    async round(signal, now = new Date()) {
      const tracked = await svc.tracked(organizationIds);
      await svc.housekeeping(tracked, organizationIds);
      const round: PollRound = { repositories: 0, checked: 0, failed: 0, waiting: 0, outcomes: [], released: [] };
      round.released = await svc.releaseWaiting(tracked, organizationIds, now);
      if (settings.intervalSeconds === 0) return round;
      const groups = groupByBranch(tracked);
      for (const key of failures.keys()) if (!groups.has(key)) failures.delete(key);
      round.repositories = groups.size;
      const due = [...groups].filter(([key]) => (failures.get(key)?.nextAt ?? 0) <= Date.now());
      round.waiting = groups.size - due.length;
      await eachLimited(due, settings.concurrency, async ([key, services]) => {
        if (!signal.aborted) await check(services, key, round, signal);
      });
      return round;
    },
  };
}
