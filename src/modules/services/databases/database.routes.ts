// HTTP routes of databases (CRUD and master credentials; status is in services.routes.ts).
import type { AppContext } from '../../../context.ts';
import type { App } from '../../../http/app-type.ts';
import { idParams } from '../../../http/schemas.ts';
import { crudRoutes } from '../type.routes.ts';
import { databaseHandler, presentedCredentials } from './database.handler.ts';
import { Credentials, Database, DatabaseEditRequest, DatabaseList, DatabaseRequest } from './database.schemas.ts';

export function databaseRoutes(app: App, ctx: AppContext): void {
  const crud = crudRoutes(ctx, {
    param: 'databaseId', tag: 'Databases', handler: databaseHandler,
    create: DatabaseRequest, edit: DatabaseEditRequest, response: Database, list: DatabaseList,
  });
  app.get('/environment/:environmentId/database', crud.list('listDatabase'));
  app.post('/environment/:environmentId/database', crud.create('createDatabase'));
  app.get('/database/:databaseId', crud.get('getDatabase'));
  app.put('/database/:databaseId', crud.edit('editDatabase'));
  app.delete('/database/:databaseId', crud.remove('deleteDatabase'));

  app.get('/database/:databaseId/masterCredentials', {
    schema: { tags: ['Databases'], operationId: 'getDatabaseMasterCredentials', summary: 'The master login and password (ADMIN), with the address clients connect to: a PUBLIC database\'s public host and port, else its name and port on the environment\'s network', params: idParams('databaseId'), response: { 200: Credentials } },
  }, async (req) => {
    const { row } = await ctx.services.services.authorizedRow(req.principal, req.params.databaseId, 'DATABASE', 'Database', 'manage');
    return presentedCredentials(ctx.db, row, ctx.sealer, ctx.config);
  });
}
