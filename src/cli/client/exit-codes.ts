// The exit codes of the client commands (also in README and `berth --help`), and the error that
// carries one: every failure is printed as one line on stderr and ends the process with its code.

export const EXIT = {
  OK: 0,
  /** an API error not covered below, or an unexpected failure */
  ERROR: 1,
  /** wrong arguments or options */
  USAGE: 2,
  /** not logged in, token refused (401), or no organization / project / environment chosen */
  AUTH: 3,
  /** not found or not allowed (404, 403), or a name that matches nothing */
  NOT_FOUND: 4,
  /** the server cannot be reached */
  UNREACHABLE: 5,
  /** --wait: the deployment ended in an error status */
  DEPLOYMENT_FAILED: 6,
  /** --wait: the deployment was cancelled */
  DEPLOYMENT_CANCELED: 7,
  /** run --wait, runs RUN -f: the workflow run FAILED (the same code as a failed deployment) */
  RUN_FAILED: 6,
  /** db backup|restore --wait: the backup or restore FAILED (the same code as a failed deployment) */
  BACKUP_FAILED: 6,
  /** run --wait, runs RUN -f: the workflow run was CANCELED */
  RUN_CANCELED: 7,
  /** Ctrl-C while following a run (the run goes on); 128 + SIGINT, as shells report it */
  INTERRUPTED: 130,
} as const;

export const EXIT_CODES_HELP = `Exit codes:
  0  success
  1  API error or unexpected failure
  2  wrong arguments or options
  3  not logged in, token refused, or no organization/project/environment chosen
  4  not found or not allowed (404/403), or a name that matches nothing
  5  the server cannot be reached
  6  --wait: the deployment ended in an error status (BUILD_ERROR, DEPLOYMENT_ERROR, …),
     or the workflow run FAILED (run --wait, runs WORKFLOW RUN -f),
     or the database backup or restore FAILED (db backup|restore --wait)
  7  --wait: the deployment or the workflow run was cancelled
  130  Ctrl-C while following a workflow run (the run goes on)`;

export class CliError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode: number = EXIT.ERROR) {
    super(message);
    this.exitCode = exitCode;
  }
}
