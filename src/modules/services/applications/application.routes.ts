// HTTP routes of applications (CRUD; status and advanced settings are in services.routes.ts).
import type { AppContext } from '../../../context.ts';
import type { App } from '../../../http/app.ts';
import { registerTypeRoutes } from '../type.routes.ts';
import { applicationHandler } from './application.handler.ts';
import { Application, ApplicationEditRequest, ApplicationList, ApplicationRequest } from './application.schemas.ts';

export function applicationRoutes(app: App, ctx: AppContext): void {
  registerTypeRoutes(app, ctx, {
    path: 'application', tag: 'Applications', handler: applicationHandler,
    create: ApplicationRequest, edit: ApplicationEditRequest, response: Application, list: ApplicationList,
    operationIds: { list: 'listApplication', create: 'createApplication', get: 'getApplication', edit: 'editApplication', remove: 'deleteApplication' },
  });
}
