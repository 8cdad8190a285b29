// HTTP routes of containers (CRUD; status and advanced settings are in services.routes.ts).
import type { AppContext } from '../../../context.ts';
import type { App } from '../../../http/app.ts';
import { registerTypeRoutes } from '../type.routes.ts';
import { containerHandler } from './container.handler.ts';
import { Container, ContainerEditRequest, ContainerList, ContainerRequest } from './container.schemas.ts';

export function containerRoutes(app: App, ctx: AppContext): void {
  registerTypeRoutes(app, ctx, {
    path: 'container', tag: 'Containers', handler: containerHandler,
    create: ContainerRequest, edit: ContainerEditRequest, response: Container, list: ContainerList,
    operationIds: { list: 'listContainer', create: 'createContainer', get: 'getContainer', edit: 'editContainer', remove: 'deleteContainer' },
  });
}
