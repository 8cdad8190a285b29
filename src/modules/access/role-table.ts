// The role table of the API reference, generated from the rules the services enforce
// (roles.ts: ROLES, roleAllows, ACTION_SCOPES), so the documentation cannot drift from them.
import { ACTION_SCOPES, ROLES, roleAllows, type Action, type Role } from './roles.ts';

interface RoleTableRow { action: Action; covers: string; allowed: Record<Role, boolean> }

function roleTable(): RoleTableRow[] {
  return (Object.keys(ACTION_SCOPES) as Action[]).map((action) => ({
    action, covers: ACTION_SCOPES[action],
    allowed: Object.fromEntries(ROLES.map((r) => [r, roleAllows(r, action)])) as Record<Role, boolean>,
  }));
}

/** a Markdown table: one row per kind of action, one column per role (✓ allowed, — refused with 403) */
export function roleTableMarkdown(): string {
  const header = `| what | ${ROLES.join(' | ')} |\n|---|${ROLES.map(() => ':-:').join('|')}|`;
  const rows = roleTable().map((r) => `| **${r.action}**: ${r.covers} | ${ROLES.map((role) => (r.allowed[role] ? '✓' : '—')).join(' | ')} |`);
  return [header, ...rows].join('\n');
}
