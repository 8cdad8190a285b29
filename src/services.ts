// Builds every module's service over the shared parts. Services depend on each other only
// through what is passed here, so the wiring of the whole system is readable in one place.
import type { ContextParts } from './context.ts';
import { createAccessService, type AccessService } from './modules/access/access.service.ts';
import { createIdentityService, type IdentityService } from './modules/identity/identity.service.ts';
import { createMembersService, type MembersService } from './modules/members/members.service.ts';
import { createOrganizationsService, type OrganizationsService } from './modules/organizations/organizations.service.ts';
import { createScopeService, type ScopeService } from './modules/scope/scope.service.ts';
import { createTokensService, type TokensService } from './modules/tokens/tokens.service.ts';

export interface Services {
  identity: IdentityService;
  access: AccessService;
  organizations: OrganizationsService;
  members: MembersService;
  tokens: TokensService;
  scope: ScopeService;
}

export function createServices(parts: ContextParts): Services {
  const { db, config } = parts;
  const identity = createIdentityService(db, config);
  const access = createAccessService(db);
  const organizations = createOrganizationsService({ db, access, identity });
  const members = createMembersService({ db, access, organizations, publicUrl: config.publicUrl });
  const tokens = createTokensService({ db, access, identity, organizations });
  const scope = createScopeService({ db, organizations });
  return { identity, access, organizations, members, tokens, scope };
}
