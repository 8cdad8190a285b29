// The catalogue of background task kinds: one entry per queue, with its retry policy. Every
// queue is created at start (enqueueing to an unknown queue inside a transaction deadlocks on
// PGlite), so a new kind of background work starts with a line here.

export interface TaskKindOptions {
  /** attempts after the first */
  readonly retryLimit: number;
  /** first retry delay in seconds; doubled each time when backoff */
  readonly retryDelay: number;
  readonly retryBackoff: boolean;
  /** a task still active after this long is considered lost and retried */
  readonly expireInSeconds: number;
  /** optional cap on the back-off delay */
  readonly retryDelayMax?: number;
}

export const TASK_KINDS = {
  /** periodic housekeeping: expired idempotency keys and invitations, PGlite VACUUM */
  'maintenance.cleanup': { retryLimit: 2, retryDelay: 30, retryBackoff: true, expireInSeconds: 300 },
} as const satisfies Record<string, TaskKindOptions>;

export type TaskKind = keyof typeof TASK_KINDS;
