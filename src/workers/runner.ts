// The worker runner: subscribes every task kind to its handler and installs the recurring tasks
// (the table in handlers.ts); starts the engine observer (or, on Swarm, the swarm observer), the
// log pruner, the git poller and the autoscaler (periodic loops, each active in one process at a
// time: periodic.ts).
// Runs in roles `all` and `worker`; handlers call the same services the API does.
import type { AppContext } from '../context.ts';
import { subscribeTasks } from './handlers.ts';
import { startEngineObserver } from './engine-observer.ts';
import { startLogPruner } from './log-retention.ts';
import { startGitPoller } from './git-poll.ts';
import { startAutoscaler } from './autoscale.ts';
import { startSwarmObserver } from './swarm-observer.ts';

export interface Workers { stop(): Promise<void> }

export async function startWorkers(ctx: AppContext): Promise<Workers> {
  await subscribeTasks(ctx);
  const observer = startEngineObserver(ctx) ?? startSwarmObserver(ctx);
  const pruner = startLogPruner(ctx);
  const gitPoller = startGitPoller(ctx);
  const autoscaler = startAutoscaler(ctx);
  return { stop: async () => { await autoscaler?.stop(); await observer?.stop(); await pruner?.stop(); await gitPoller.stop(); } };
}
