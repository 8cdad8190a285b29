// HTTP routes of preview environments: an environment's previews (read like the environment), and
// the approval of a pull request from a fork (a role that may deploy the environment). Previews are
// made by pull-request events (the git webhook route calls the service), not by a request of their own.
import type { AppContext } from '../../context.ts';
import type { App } from '../../http/app-type.ts';
import { pageRequest } from '../../http/pagination.ts';
import { PageQuery, idParams } from '../../http/schemas.ts';
import { Preview, PreviewList } from './previews.schemas.ts';

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

  app.post('/environment/:environmentId/preview/:previewId/approve', {
    schema: {
      tags, operationId: 'approveEnvironmentPreview', params: idParams('environmentId', 'previewId'), response: { 200: Preview },
      summary: 'Approve the head commit of a pull request from a fork (DevOps and above): its preview, AWAITING_APPROVAL until now, opens at that '
        + 'commit (a copy made and deployed, or the copy of an earlier approved commit redeployed). An approval is for one commit: a new '
        + 'commit waits again. 409 when the preview is not AWAITING_APPROVAL or the environment has as many open previews as allowed',
    },
  }, async (req) => svc.approve(req.principal, req.params.environmentId, req.params.previewId));
}
