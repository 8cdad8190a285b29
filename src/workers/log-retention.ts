// The log pruner (decision 0408): every LOG_PRUNE_INTERVAL_SECONDS, in one worker process at a
// time (a lease row in engine_leases, as the engine observer's), deletes runtime lines past
// LOG_RETENTION_DAYS and beyond each service's newest LOG_RETENTION_LINES_PER_SERVICE, at most
// LOG_PRUNE_BATCH a statement (log-retention.service.ts); on PGlite it also vacuums the table once
// enough went. Not started when both limits are 0.
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../context.ts';
import { holdLease, releaseLease } from '../modules/deployments/runtime-state.ts';
import { leaseSeconds, retentionDisabled, retentionSettings, type RetentionSettings } from '../modules/log-retention/log-retention.rules.ts';
import { pruneRuntimeLogs, vacuumIfDue, type PruneResult } from '../modules/log-retention/log-retention.service.ts';

export const LOG_RETENTION_LEASE = 'log-retention';

export interface LogPruner {
  /** one prune now, if this process holds the lease (null when another does) */
  tick(): Promise<(PruneResult & { vacuumed: boolean }) | null>;
  stop(): Promise<void>;
}

export function startLogPruner(ctx: Pick<AppContext, 'db' | 'logger' | 'config'>, settings: RetentionSettings = retentionSettings(ctx.config)): LogPruner | null {
  if (retentionDisabled(settings)) return null;
  const holder = randomUUID();
  const stopping = new AbortController();
  let running: Promise<unknown> | null = null;
  let deletedSinceVacuum = 0;

  async function prune(): Promise<(PruneResult & { vacuumed: boolean }) | null> {
    if (!await holdLease(ctx.db, LOG_RETENTION_LEASE, holder, leaseSeconds(settings.intervalSeconds))) return null;
    const result = await pruneRuntimeLogs(ctx.db, settings, { signal: stopping.signal });
    deletedSinceVacuum += result.byAge + result.byCount;
    const vacuumed = !stopping.signal.aborted && await vacuumIfDue(ctx.db, deletedSinceVacuum, settings.batch);
    if (vacuumed) deletedSinceVacuum = 0;
    if (result.statements > 1 || result.byAge + result.byCount > 0) ctx.logger.info({ ...result, vacuumed }, 'runtime log lines pruned');
    return { ...result, vacuumed };
  }

  /** one prune at a time in this process: a tick while one runs waits for it and answers its result */
  function tick(): Promise<(PruneResult & { vacuumed: boolean }) | null> {
    if (running) return running as ReturnType<typeof prune>;
    const p = prune().finally(() => { running = null; });
    running = p;
    return p;
  }

  const timer = setInterval(() => {
    if (!stopping.signal.aborted && !running) tick().catch((err: unknown) => ctx.logger.warn({ err }, 'log pruner'));
  }, settings.intervalSeconds * 1000);
  timer.unref();

  return {
    tick,
    async stop() {
      stopping.abort();
      clearInterval(timer);
      await running?.catch(() => {});
      await releaseLease(ctx.db, LOG_RETENTION_LEASE, holder).catch(() => {});
    },
  };
}
