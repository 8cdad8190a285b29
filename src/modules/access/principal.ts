// Who is calling: an organization API token or a user signed in through OIDC. A workflow run's
// credential (decision 0197) is a token principal narrowed by a RunScope.
import type { Role } from './roles.ts';

/** what a run-scoped credential reaches: one environment, some services in it, until it ends */
export interface RunScope {
  readonly runId: string;
  readonly workflowId: string;
  readonly environmentId: string;
  /** the workflow and its context services (their copies in CLONE_ENVIRONMENT mode) */
  readonly serviceIds: readonly string[];
  readonly mayAct: boolean;
  readonly expiresAt: number;
}

export type Principal =
  | {
      readonly kind: 'token';
      readonly id: string;
      readonly organizationId: string;
      readonly role: Role;
      readonly name: string;
      /** the rate-limit and idempotency bucket */
      readonly key: string;
      /** set for a workflow run's credential: it reaches only this (berth's MCP server only) */
      readonly runScope?: RunScope;
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
