// HTTP route of preview environments: an environment's previews (read like the environment).
// Previews are made by pull-request events (the git webhook route calls the service), not by a
// request of their own.
import type { AppContext } from '../../context.ts';
import type { App } from '../../http/app-type.ts';
import { pageRequest } from '../../http/pagination.ts';
import { PageQuery, idParams } from '../../http/schemas.ts';
import { PreviewList } from './previews.schemas.ts';

const tags = ['Environments'];

export function previewRoutes(app: App, ctx: AppContext): void {
  const svc = ctx.services.previews;

  app.get('/environment/:environmentId/preview', {
    schema: {
      tags, operationId: 'listEnvironmentPreviews', params: idParams('environmentId'), querystring: PageQuery, response: { 200: PreviewList },
      summary: 'The environment\'s preview environments: one per pull request against a branch its services with auto_preview track '
        + '(open ones first, then the most recently changed; 20 a page by default), with the copy\'s id, state and why',
    },
  }, async (req) => svc.list(req.principal, req.params.environmentId, pageRequest(req.query, 'history')));
}
