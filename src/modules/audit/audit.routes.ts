// HTTP route of the organization audit log (the public API's getOrganizationEvents).
import type { AppContext } from '../../context.ts';
import type { App } from '../../http/app-type.ts';
import { idParams } from '../../http/schemas.ts';
import { EventsQuery, OrganizationEventList } from './audit.schemas.ts';

export function auditRoutes(app: App, ctx: AppContext): void {
  app.get('/organization/:organizationId/events', {
    schema: {
      tags: ['Organizations'], operationId: 'getOrganizationEvents', params: idParams('organizationId'), querystring: EventsQuery,
      summary: 'The audit log (ADMIN and above): who changed what, when, from which token or user; newest first, kept after the target is deleted',
      response: { 200: OrganizationEventList },
    },
  }, async (req) => ctx.services.audit.list(req.principal, req.params.organizationId, req.query as Record<string, string>));
}
