// HTTP routes of jobs (CRUD; status and advanced settings are in services.routes.ts). Create is 201.
import type { AppContext } from '../../../context.ts';
import type { App } from '../../../http/app-type.ts';
import { crudRoutes } from '../type.routes.ts';
import { jobHandler } from './job.handler.ts';
import { Job, JobEditRequest, JobList, JobRequest } from './job.schemas.ts';

export function jobRoutes(app: App, ctx: AppContext): void {
  const crud = crudRoutes(ctx, {
    param: 'jobId', tag: 'Jobs', handler: jobHandler,
    create: JobRequest, edit: JobEditRequest, response: Job, list: JobList,
  });
  app.get('/environment/:environmentId/job', crud.list('listJobs'));
  app.post('/environment/:environmentId/job', crud.create('createJob'));
  app.get('/job/:jobId', crud.get('getJob'));
  app.put('/job/:jobId', crud.edit('editJob'));
  app.delete('/job/:jobId', crud.remove('deleteJob'));
}
