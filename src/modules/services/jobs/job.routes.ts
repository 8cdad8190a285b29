// HTTP routes of jobs (CRUD; status and advanced settings are in services.routes.ts). Create is 201.
import type { AppContext } from '../../../context.ts';
import type { App } from '../../../http/app.ts';
import { registerTypeRoutes } from '../type.routes.ts';
import { jobHandler } from './job.handler.ts';
import { Job, JobEditRequest, JobList, JobRequest } from './job.schemas.ts';

export function jobRoutes(app: App, ctx: AppContext): void {
  registerTypeRoutes(app, ctx, {
    path: 'job', tag: 'Jobs', handler: jobHandler,
    create: JobRequest, edit: JobEditRequest, response: Job, list: JobList,
    operationIds: { list: 'listJobs', create: 'createJob', get: 'getJob', edit: 'editJob', remove: 'deleteJob' },
  });
}
