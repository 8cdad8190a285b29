// The figures bench/scale.ts measures and bench/scale-report.ts prints (and test/perf reads from
// its JSON): the probe's per-process and per-phase figures, the top statements and activity of the
// PostgreSQL server, and one run's results. A leaf, so the bench and its report do not import each other.
import type { OrderCheck } from './scale-deployments.ts';

export interface ProcessFigures { name: string; pid: number; peakRssMiB: number; lastRssMiB: number; cpuSeconds: number; rssSeries: number[] }
export interface PhaseFigures {
  seconds: number; processes: ProcessFigures[]; berthCpuSeconds: number;
  /** the backends serving the bench's database (null on PGlite: the database is inside berth) */
  postgresCpuSeconds: number | null;
  /** the server's own processes (checkpointer, WAL writer, autovacuum…): shared with other users of the server */
  postgresServerCpuSeconds: number | null;
}

export interface StatementFigure { query: string; calls: number; totalMs: number }

export interface ActivityFigure { query: string; samples: number; share: number }

export type ScaleDb = 'postgres' | 'pglite';

export interface DeploymentPhase {
  queued: number; environments: number; queueSeconds: number; drainSeconds: number; perSecond: number;
  order: Omit<OrderCheck, 'firstStartedAt' | 'lastFinishedAt'>; shares: Record<string, number>;
  figures: PhaseFigures; statements: StatementFigure[] | null; activity: ActivityFigure[] | null;
}
export interface WebhookPhase {
  expected: number; hooks: number; deployments: number; receiverMs: number; delivered: number; requests: number;
  seconds: number; perSecond: number; maxInFlight: number; peakBacklog: number;
  rssAtStart: Record<string, number>; figures: PhaseFigures; statements: StatementFigure[] | null; activity: ActivityFigure[] | null;
}
export interface ScaleRun { db: ScaleDb; processes: string[]; deployments: DeploymentPhase; webhooks: WebhookPhase }
