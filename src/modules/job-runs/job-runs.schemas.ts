// Shapes of job runs (berth's own: the public API has no run resource for jobs): one per cron
// occurrence or lifecycle command, with its exit code, and its output lines.
import { Type } from 'typebox';
import { Paginated, Timestamp, Uuid } from '../../http/schemas.ts';

const NullableTime = Type.Union([Timestamp, Type.Null()]);

export const JobRun = Type.Object({
  id: Uuid,
  job_id: Uuid,
  trigger: Type.String({ description: 'CRON (a schedule occurrence), ON_START, ON_STOP, ON_DELETE' }),
  scheduled_for: Type.Union([Timestamp, Type.Null()], { description: 'the cron occurrence this run is for' }),
  status: Type.String({ description: 'QUEUED → RUNNING → SUCCEEDED / FAILED, or CANCELED (a cron occurrence skipped while another run was still running: cronjob.concurrency_policy Forbid; the message says so)' }),
  exit_code: Type.Union([Type.Integer(), Type.Null()], { description: 'of the last attempt' }),
  attempts: Type.Integer({ description: 'containers started: 1 + retries (max_nb_restart)' }),
  message: Type.Union([Type.String(), Type.Null()]),
  created_at: Timestamp,
  started_at: NullableTime,
  finished_at: NullableTime,
});
export const JobRunList = Paginated(JobRun);

export const JobRunLog = Type.Object({
  results: Type.Array(Type.Object({ id: Type.String(), created_at: Timestamp, message: Type.String() })),
});
