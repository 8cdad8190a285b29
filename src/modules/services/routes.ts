// Every route of the services module (applications, containers, databases, jobs, shared,
// organization annotations/labels groups).
import type { AppContext } from '../../context.ts';
import type { App } from '../../http/app-type.ts';
import { applicationRoutes } from './applications/application.routes.ts';
import { containerRoutes } from './containers/container.routes.ts';
import { databaseRoutes } from './databases/database.routes.ts';
import { jobRoutes } from './jobs/job.routes.ts';
import { serviceRoutes } from './services.routes.ts';
import { groupRoutes } from './groups/groups.routes.ts';

export function servicesModuleRoutes(app: App, ctx: AppContext): void {
  applicationRoutes(app, ctx);
  containerRoutes(app, ctx);
  databaseRoutes(app, ctx);
  jobRoutes(app, ctx);
  serviceRoutes(app, ctx);
  groupRoutes(app, ctx);
}
