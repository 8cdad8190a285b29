// The git poller (decision 0341): every GIT_POLL_INTERVAL_SECONDS, in one worker process at a
// time (a lease row in engine_leases, as the log pruner's), checks the branches services with
// auto_deploy track (src/modules/git-push/git-push.poll.ts). With polling off (0) it still runs a
// round a minute for the commits waiting for a deployment window and the housekeeping.
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../context.ts';
import { holdLease, releaseLease } from '../modules/deployments/runtime-state.ts';
import { createGitPoller, pollSettings, type PollRound, type PollSettings } from '../modules/git-push/git-push.poll.ts';

export const GIT_POLL_LEASE = 'git-poll';

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
  const holder = randomUUID();
  const stopping = new AbortController();
  const poller = createGitPoller(ctx, settings, organizationIds);
  let running: Promise<PollRound | null> | null = null;

  async function round(): Promise<PollRound | null> {
    if (!await holdLease(ctx.db, lease, holder, everySeconds * 2 + 30)) return null;
    const result = await poller.round(stopping.signal);
    const deployed = [...result.outcomes, ...result.released].filter((o) => o.outcome === 'deployed');
    if (deployed.length > 0) ctx.logger.info({ deployments: deployed.map((o) => o.deployment_id) }, `git poll: ${deployed.length} deployment(s) of new commits queued`);
    return result;
  }

  /** one round at a time in this process: a tick while one runs waits for it and answers its result */
  function tick(): Promise<PollRound | null> {
    if (running) return running;
    const p = round().finally(() => { running = null; });
    running = p;
    return p;
  }

  const timer = setInterval(() => {
    if (!stopping.signal.aborted && !running) tick().catch((err: unknown) => ctx.logger.warn({ err }, 'git poll round failed'));
  }, everySeconds * 1000);
  timer.unref();

  return {
    tick,
    async stop() {
      stopping.abort();
      clearInterval(timer);
      await running?.catch(() => {});
      await releaseLease(ctx.db, lease, holder).catch(() => {});
    },
  };
}
