// Every module's routes, registered once at the root and once under /api/v1.
import type { AppContext } from '../context.ts';
import type { App } from '../http/app.ts';
import { memberRoutes } from './members/members.routes.ts';
import { organizationRoutes } from './organizations/organizations.routes.ts';
import { tokenRoutes } from './tokens/tokens.routes.ts';

export function registerModuleRoutes(app: App, ctx: AppContext): void {
  organizationRoutes(app, ctx);
  memberRoutes(app, ctx);
  tokenRoutes(app, ctx);
}
