// The git poller (decision 0341): every GIT_POLL_INTERVAL_SECONDS, in one worker process at a
// time (the lease and timer of periodic.ts), checks the branches services with
// auto_deploy track (src/modules/git-push/git-push.poll.ts). With polling off (0) it still runs a
// round a minute for the commits waiting for a deployment window and the housekeeping.
import type { AppContext } from '../context.ts';
import { createGitPoller, pollSettings, type PollRound, type PollSettings } from '../modules/git-push/git-push.poll.ts';
import { startPeriodic } from './periodic.ts';

const GIT_POLL_LEASE = 'git-poll';

export interface GitPollerHandle {
  /** one round now, if this process holds the lease (null when another does) */
  tick(): Promise<PollRound | null>;
  stop(): Promise<void>;
}

/** `organizationIds`: poll only these organizations' services (tests; null: all) */
export function startGitPoller(ctx: Pick<AppContext, 'db' | 'sealer' | 'logger' | 'services' | 'config'>,
  settings: PollSettings = pollSettings(ctx.config), organizationIds: readonly string[] | null = null): GitPollerHandle {
  const everySeconds = settings.intervalSeconds || 60;
  const lease = organizationIds ? `${GIT_POLL_LEASE}:${[...organizationIds].sort().join(',')}` : GIT_POLL_LEASE;
  const poller = createGitPoller(ctx, settings, organizationIds);

  async function round(signal: AbortSignal): Promise<PollRound> {
    const result = await poller.round(signal);
    const deployed = [...result.outcomes, ...result.released].filter((o) => o.outcome === 'deployed');
    if (deployed.length > 0) ctx.logger.info({ deployments: deployed.map((o) => o.deployment_id) }, `git poll: ${deployed.length} deployment(s) of new commits queued`);
    return result;
  }

  const { tick, stop } = startPeriodic({ lease, everySeconds, round, failure: 'git poll round failed', db: ctx.db, logger: ctx.logger });
  return { tick, stop };
}
