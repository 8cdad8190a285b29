// HTTP routes of applications (CRUD; status and advanced settings are in services.routes.ts).
import type { AppContext } from '../../../context.ts';
import type { App } from '../../../http/app-type.ts';
import { crudRoutes } from '../type.routes.ts';
import { applicationHandler } from './application.handler.ts';
import { Application, ApplicationEditRequest, ApplicationList, ApplicationRequest } from './application.schemas.ts';

export function applicationRoutes(app: App, ctx: AppContext): void {
  const crud = crudRoutes(ctx, {
    param: 'applicationId', tag: 'Applications', handler: applicationHandler,
    create: ApplicationRequest, edit: ApplicationEditRequest, response: Application, list: ApplicationList,
  });
  app.get('/environment/:environmentId/application', crud.list('listApplication'));
  app.post('/environment/:environmentId/application', crud.create('createApplication'));
  app.get('/application/:applicationId', crud.get('getApplication'));
  app.put('/application/:applicationId', crud.edit('editApplication'));
  app.delete('/application/:applicationId', crud.remove('deleteApplication'));
}
