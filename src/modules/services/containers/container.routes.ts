// HTTP routes of containers (CRUD; status and advanced settings are in services.routes.ts).
import type { AppContext } from '../../../context.ts';
import type { App } from '../../../http/app-type.ts';
import { crudRoutes } from '../type.routes.ts';
import { containerHandler } from './container.handler.ts';
import { Container, ContainerEditRequest, ContainerList, ContainerRequest } from './container.schemas.ts';

export function containerRoutes(app: App, ctx: AppContext): void {
  const crud = crudRoutes(ctx, {
    param: 'containerId', tag: 'Containers', handler: containerHandler,
    create: ContainerRequest, edit: ContainerEditRequest, response: Container, list: ContainerList,
  });
  app.get('/environment/:environmentId/container', crud.list('listContainer'));
  app.post('/environment/:environmentId/container', crud.create('createContainer'));
  app.get('/container/:containerId', crud.get('getContainer'));
  app.put('/container/:containerId', crud.edit('editContainer'));
  app.delete('/container/:containerId', crud.remove('deleteContainer'));
}
