// The swarm observer (ENGINE=swarm; one process at a time through a lease, like the engine
// observer on one host): every second it keeps each service's ingress routes on the
// tasks that run now (a drained or dead node's tasks leave the routes, their replacements join),
// and turns what Swarm reports into berth's state. A RUNNING service with fewer running tasks than
// it wants on ready nodes, seen on two rounds in a row, or one that lost tasks with a node that went
// down, is degraded: ERROR with a DEPLOYMENT_FAILED event (and its webhooks) naming the node; once
// Swarm runs every task again it is RUNNING again. Each service's task output (followed from the
// manager, wherever the task runs) becomes RUNTIME log lines. The lease and the timer are periodic.ts's.
import type { AppContext } from '../context.ts';
import { insertRuntimeLine, markRecovered, markRuntimeFailure, runtimeResumePoint, serviceStates } from '../modules/deployments/runtime-state.ts';
import { followServiceLogs, isoOfMicros, type LogFollow, type SwarmDriver, type TaskLine } from '../engine/index.ts';
import { startPeriodic } from './periodic.ts';

const swarmObserverSettings = { leaseSeconds: 15, tickMs: 1000 };

const LEASE = 'engine-observer';

export function startSwarmObserver(ctx: AppContext): { stop(): Promise<void> } | null {
  if (ctx.engine.name !== 'swarm') return null;
  const driver = ctx.engine as SwarmDriver;
  const short = new Set<string>();
  const reportedLost = new Set<string>();
  /** services whose output is followed now (berth service id → its stream) */
  const follows = new Map<string, LogFollow | 'starting'>();
  const onError = (err: unknown) => ctx.logger.warn({ err }, 'swarm observer');

  /** every task's output as RUNTIME lines, each task resuming after its own last recorded line (decision 0332) */
  async function follow(serviceId: string, swarmId: string): Promise<void> {
    const resume = new Map<string, { micros: bigint; recorded: number } | null>();
    const record = async (line: TaskLine) => {
      if (!resume.has(line.taskId)) resume.set(line.taskId, await runtimeResumePoint(ctx.db, serviceId, line.taskId));
      const point = resume.get(line.taskId);
      if (point && line.micros < point.micros) return;
      if (point && line.micros === point.micros && point.recorded > 0) { point.recorded--; return; }
      await insertRuntimeLine(ctx.db, serviceId, line.taskId, isoOfMicros(line.micros), line.text);
    };
    follows.set(serviceId, 'starting');
    try {
      const stream = await followServiceLogs(driver.docker, swarmId, null, record);
      if (follows.get(serviceId) !== 'starting') { stream.stop(); return; } // stopped meanwhile
      follows.set(serviceId, stream);
      void stream.ended.finally(() => { if (follows.get(serviceId) === stream) follows.delete(serviceId); });
    } catch (err) {
      follows.delete(serviceId);
      throw err;
    }
  }

  function stopFollowing(): void {
    for (const f of follows.values()) if (f !== 'starting') f.stop();
    follows.clear();
  }

  async function observe(): Promise<void> {
    let states = new Map<string, { state: string; generation: string | null }>();
    const health = await driver.syncAll(async (ids) => {
      states = await serviceStates(ctx.db, ids);
      return new Set(states.keys());
    });
    const present = new Set(health.map((h) => h.serviceId));
    for (const [id, f] of follows) if (!present.has(id)) { if (f !== 'starting') f.stop(); follows.delete(id); }
    for (const h of health) {
      const known = states.get(h.serviceId);
      if (!known) continue; // not berth's (another berth on this Swarm), or mid-deletion
      // the stream starts on its own: a slow answer (a node just died) never holds up this round
      if (!follows.has(h.serviceId)) void follow(h.serviceId, h.swarmId).catch(onError);
      const newlyLost = h.lost.filter((id) => !reportedLost.has(id));
      if (newlyLost.length > 0) {
        // a node died under the service: degraded now, even when Swarm has already started the replacements
        newlyLost.forEach((id) => reportedLost.add(id));
        if (known.state === 'RUNNING') {
          await ctx.db.transaction((tx) => markRuntimeFailure(tx, { queue: ctx.queue, services: ctx.services.services }, h.serviceId, null, `Degraded: ${h.detail}; Swarm reschedules them on the other nodes`));
          ctx.logger.warn({ serviceId: h.serviceId, detail: h.detail }, 'a swarm service lost tasks with a node');
        }
        continue; // recovery is seen from the next round on
      }
      if (h.running < h.desired && known.state === 'RUNNING') {
        if (!short.has(h.serviceId)) { short.add(h.serviceId); continue; } // once may be a task being replaced
        const marked = await ctx.db.transaction((tx) => markRuntimeFailure(tx, { queue: ctx.queue, services: ctx.services.services }, h.serviceId, null, `Degraded: ${h.detail}; Swarm reschedules the missing task(s)`));
        if (marked) ctx.logger.warn({ serviceId: h.serviceId, detail: h.detail }, 'a swarm service is degraded');
      } else if (h.running >= h.desired) {
        short.delete(h.serviceId);
        if (known.state === 'ERROR' && await ctx.db.transaction((tx) => markRecovered(tx, { services: ctx.services.services }, h.serviceId))) {
          await ctx.services.deployments.appendLog(ctx.db, known.generation, h.serviceId, 'DEPLOY', `Swarm runs every task again: ${h.detail}`);
        }
      }
    }
  }

  const { stop } = startPeriodic({
    lease: LEASE, everySeconds: swarmObserverSettings.tickMs / 1000, leaseSeconds: swarmObserverSettings.leaseSeconds,
    round: observe, failure: 'swarm observer', db: ctx.db, logger: ctx.logger,
    // the output is followed by the lease holder alone
    notHeld: stopFollowing, drain: stopFollowing,
  });
  return { stop };
}
