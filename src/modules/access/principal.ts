// Who is calling: an organization API token or a user signed in through OIDC.
import type { Role } from './roles.ts';

export type Principal =
  | {
      readonly kind: 'token';
      readonly id: string;
      readonly organizationId: string;
      readonly role: Role;
      readonly name: string;
      /** the rate-limit and idempotency bucket */
      readonly key: string;
    }
  | {
      readonly kind: 'user';
      readonly id: string;
      readonly sub: string;
      readonly email: string | null;
      readonly emailVerified: boolean;
      readonly name: string | null;
      readonly key: string;
    };

export function displayName(p: Principal): string {
  return p.kind === 'token' ? `token ${p.name}` : (p.name ?? p.email ?? p.sub);
}
