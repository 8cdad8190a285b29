// HTTP routes of job runs: history (newest first), one run, and its output lines.
import type { AppContext } from '../../context.ts';
import type { App } from '../../http/app-type.ts';
import { pageRequest } from '../../http/pagination.ts';
import { PageQuery, idParams } from '../../http/schemas.ts';
import { JobRun, JobRunList, JobRunLog } from './job-runs.schemas.ts';

const tags = ['Jobs'];

export function jobRunRoutes(app: App, ctx: AppContext): void {
  const svc = ctx.services.jobRuns;
  app.get('/job/:jobId/run', {
    schema: { tags, operationId: 'listJobRuns', summary: 'Runs of a job (cron occurrences, lifecycle commands), newest first, with exit codes', params: idParams('jobId'), querystring: PageQuery, response: { 200: JobRunList } },
  }, async (req) => svc.list(req.principal, req.params.jobId, pageRequest(req.query, 'history')));
  app.get('/job/:jobId/run/:runId', {
    schema: { tags, operationId: 'getJobRun', params: idParams('jobId', 'runId'), response: { 200: JobRun } },
  }, async (req) => svc.get(req.principal, req.params.jobId, req.params.runId));
  app.get('/job/:jobId/run/:runId/log', {
    schema: { tags, operationId: 'getJobRunLog', summary: 'The output lines of a run, oldest first (up to 10,000)', params: idParams('jobId', 'runId'), response: { 200: JobRunLog } },
  }, async (req) => svc.log(req.principal, req.params.jobId, req.params.runId));
}
