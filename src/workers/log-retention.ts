// The log pruner (decision 0408): every LOG_PRUNE_INTERVAL_SECONDS, in one worker process at a
// time (the lease and timer of periodic.ts), deletes runtime lines past
// LOG_RETENTION_DAYS and beyond each service's newest LOG_RETENTION_LINES_PER_SERVICE, at most
// LOG_PRUNE_BATCH a statement (log-retention.service.ts); on PGlite it also vacuums the table once
// enough went. Not started when both limits are 0.
import type { AppContext } from '../context.ts';
import { leaseSeconds, retentionDisabled, retentionSettings, type RetentionSettings } from '../modules/log-retention/log-retention.rules.ts';
import { pruneRuntimeLogs, vacuumIfDue, type PruneResult } from '../modules/log-retention/log-retention.service.ts';
import { startPeriodic } from './periodic.ts';

export const LOG_RETENTION_LEASE = 'log-retention';

export interface LogPruner {
  /** one prune now, if this process holds the lease (null when another does) */
  tick(): Promise<(PruneResult & { vacuumed: boolean }) | null>;
  stop(): Promise<void>;
}

export function startLogPruner(ctx: Pick<AppContext, 'db' | 'logger' | 'config'>, settings: RetentionSettings = retentionSettings(ctx.config)): LogPruner | null {
  if (retentionDisabled(settings)) return null;
  let deletedSinceVacuum = 0;

  async function prune(signal: AbortSignal): Promise<PruneResult & { vacuumed: boolean }> {
    const result = await pruneRuntimeLogs(ctx.db, settings, { signal });
    deletedSinceVacuum += result.byAge + result.byCount;
    const vacuumed = !signal.aborted && await vacuumIfDue(ctx.db, deletedSinceVacuum, settings.batch);
    if (vacuumed) deletedSinceVacuum = 0;
    if (result.statements > 1 || result.byAge + result.byCount > 0) ctx.logger.info({ ...result, vacuumed }, 'runtime log lines pruned');
    return { ...result, vacuumed };
  }

  const { tick, stop } = startPeriodic({
    lease: LOG_RETENTION_LEASE, everySeconds: settings.intervalSeconds, leaseSeconds: leaseSeconds(settings.intervalSeconds),
    round: prune, failure: 'log pruner', db: ctx.db, logger: ctx.logger,
  });
  return { tick, stop };
}
