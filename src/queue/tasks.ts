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
  /** run (or resume) one deployment; idempotent, resumes from the recorded step */
  'deployments.run': { retryLimit: 5, retryDelay: 5, retryBackoff: true, expireInSeconds: 900 },
  /** every minute: resume or fail deployments whose worker died (stale heartbeat) */
  'deployments.sweep': { retryLimit: 1, retryDelay: 10, retryBackoff: false, expireInSeconds: 120 },
  /** one delivery attempt of a webhook event; the handler schedules the next attempt itself */
  'webhooks.deliver': { retryLimit: 3, retryDelay: 10, retryBackoff: true, expireInSeconds: 120 },
  /** one incident's message to one notification channel (Slack, Discord, e-mail); a rejection is retried */
  'notifications.send': { retryLimit: 5, retryDelay: 15, retryBackoff: true, expireInSeconds: 120, retryDelayMax: 900 },
  /** every minute: start the runs of agentic workflows whose schedule occurrence has come (exactly once each) */
  'workflows.schedule': { retryLimit: 1, retryDelay: 10, retryBackoff: false, expireInSeconds: 120 },
  /** one delivery attempt of a finished workflow run's result to one of its outputs; the handler schedules the next attempt itself */
  'workflows.output-deliver': { retryLimit: 3, retryDelay: 10, retryBackoff: true, expireInSeconds: 120 },
  /** delete the throwaway environment copy a CLONE_ENVIRONMENT workflow run deployed in, once the run settled */
  'workflows.clone-cleanup': { retryLimit: 5, retryDelay: 30, retryBackoff: true, expireInSeconds: 300 },
  /** a preview deployment settled DEPLOYED: start the runs per pull request once the preview is healthy at its head */
  'workflows.pull-request': { retryLimit: 3, retryDelay: 5, retryBackoff: true, expireInSeconds: 300 },
  /** every minute: turn due cron-job occurrences into runs (exactly once each) */
  'jobs.schedule': { retryLimit: 1, retryDelay: 10, retryBackoff: false, expireInSeconds: 120 },
  /** run one job run (cron occurrence) to completion through the engine; a claimed run is never run twice */
  'jobs.run': { retryLimit: 0, retryDelay: 10, retryBackoff: false, expireInSeconds: 6 * 3600 },
  /** uninstall, through the engine, the services of environments that were deleted (a snapshot in the payload) */
  'engine.uninstall': { retryLimit: 5, retryDelay: 30, retryBackoff: true, expireInSeconds: 900 },
  /** move one custom domain's lifecycle on: check its DNS, order or renew its certificate, install it on the ingress */
  'domains.advance': { retryLimit: 3, retryDelay: 30, retryBackoff: true, expireInSeconds: 600 },
  /** order or renew the wildcard certificate of INGRESS_DOMAIN's hosts (INGRESS_DOMAIN_HTTPS) and install it on the ingress */
  'domains.certify-ingress-domain': { retryLimit: 1, retryDelay: 60, retryBackoff: false, expireInSeconds: 900 },
  /** every minute: advance the custom domains waiting for DNS or a certificate, failed ones due again, and renewals */
  'domains.visit': { retryLimit: 1, retryDelay: 10, retryBackoff: false, expireInSeconds: 120 },
  /** take one database backup (dump → compress → encrypt → store → read back); never retried: a second attempt finds it RUNNING and fails it */
  'backups.take': { retryLimit: 0, retryDelay: 10, retryBackoff: false, expireInSeconds: 12 * 3600 },
  /** restore a backup (in place after a safety backup, or into the new database once deployed: re-queued while it starts) */
  'backups.restore': { retryLimit: 0, retryDelay: 10, retryBackoff: false, expireInSeconds: 12 * 3600 },
  /** restore a backup into a throwaway container and record what it holds */
  'backups.drill': { retryLimit: 0, retryDelay: 10, retryBackoff: false, expireInSeconds: 6 * 3600 },
  /** every minute: fail backups whose worker died, queue scheduled backups and drills, mark overdue databases, apply retention */
  'backups.visit': { retryLimit: 1, retryDelay: 10, retryBackoff: false, expireInSeconds: 300 },
  /** post the stages of one deployment not yet posted to its git provider (status on the provider); the handler schedules its own retries */
  'providers.report': { retryLimit: 3, retryDelay: 10, retryBackoff: true, expireInSeconds: 300 },
  /** create or edit the one comment of a pull request with a preview; the handler schedules its own retries */
  'providers.comment': { retryLimit: 3, retryDelay: 10, retryBackoff: true, expireInSeconds: 300 },
} as const satisfies Record<string, TaskKindOptions>;

export type TaskKind = keyof typeof TASK_KINDS;
