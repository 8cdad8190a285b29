// Roles and what they allow: pure rules, no I/O. One role per member or token:
// VIEWER reads; DEVOPS also creates, edits and deploys services, variables and workflows;
// ADMIN also manages clusters, registries, git tokens, projects, environments, webhooks, providers,
// connectors, members and tokens; OWNER also deletes or transfers the organization.

export const ROLES = ['VIEWER', 'DEVOPS', 'ADMIN', 'OWNER'] as const;
export type Role = (typeof ROLES)[number];

/** read < write (services, variables, workflows, deployments) < manage (infrastructure, people) < own */
export type Action = 'read' | 'write' | 'manage' | 'own';

const RANK: Record<Role, number> = { VIEWER: 0, DEVOPS: 1, ADMIN: 2, OWNER: 3 };
const NEEDED: Record<Action, number> = { read: 0, write: 1, manage: 2, own: 3 };

export function roleAllows(role: Role, action: Action): boolean {
  return RANK[role] >= NEEDED[action];
}

/** a caller may hand out a role no higher than their own */
export function canGrant(granter: Role, granted: Role): boolean {
  return RANK[granter] >= RANK[granted];
}

function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

/** Built-in roles have fixed ids so clients that send `role_id` (the public API's way) work. */
export const ROLE_IDS: Record<Role, string> = {
  OWNER: '00000000-0000-4000-8000-00000000a001',
  ADMIN: '00000000-0000-4000-8000-00000000a002',
  DEVOPS: '00000000-0000-4000-8000-00000000a003',
  VIEWER: '00000000-0000-4000-8000-00000000a004',
};

export const ROLE_NAMES: Record<Role, string> = { OWNER: 'Owner', ADMIN: 'Admin', DEVOPS: 'DevOps', VIEWER: 'Viewer' };

function roleFromId(id: string): Role | undefined {
  return (Object.keys(ROLE_IDS) as Role[]).find((r) => ROLE_IDS[r] === id.toLowerCase());
}

/** role given as `role` (name, case-insensitive; the public clients' DEVELOPER means DEVOPS) or `role_id` */
export function resolveRole(input: { role?: string | null; role_id?: string | null }): Role | undefined {
  if (input.role_id) return roleFromId(input.role_id);
  if (input.role) {
    const upper = input.role.toUpperCase();
    if (upper === 'DEVELOPER') return 'DEVOPS';
    return isRole(upper) ? upper : undefined;
  }
  return undefined;
}

/** what each action covers, as the services apply it (rendered in the API reference's role table) */
export const ACTION_SCOPES: Readonly<Record<Action, string>> = {
  read: 'read the organization and everything in it (no secret values)',
  write: 'create, edit, delete and deploy services (applications, containers, databases, jobs, agentic workflows), their variables and secrets; deployment actions and cancellations; database backups, their policies and drills, restores into a new database',
  manage: 'clusters, container registries, git tokens, projects, environments, deployment rules, webhooks, LLM providers, MCP connectors, members, invitations, API tokens, organization settings, database master credentials, the audit log, backup storage, restores in place and backup downloads',
  own: 'delete the organization, transfer its ownership',
};
