// Every tool of berth's MCP server, and which of them a caller is offered: reading tools to any
// member; acting tools to a role that may write (DEVOPS and up) somewhere; to a workflow run's
// credential only the tools about its environment, acting ones only when its workflow's
// governance allows it. The README's tool list is generated from here (toolListMarkdown).
import type { Principal } from '../modules/access/principal.ts';
import { roleAllows, type Role } from '../modules/access/roles.ts';
import type { ToolDef } from './tool.ts';
import { actTools } from './tools/act.ts';
import { backupTools } from './tools/backups.ts';
import { domainTools } from './tools/domains.ts';
import { manifestTools } from './tools/manifests.ts';
import { readTools } from './tools/read.ts';

export const TOOLS: readonly ToolDef[] = [...readTools, ...actTools, ...domainTools, ...backupTools, ...manifestTools];

/** the tools this caller is offered, given its highest role (access.highestRole); a call to another is refused */
export function toolsFor(p: Principal, role: Role | null): ToolDef[] {
  const run = p.kind === 'token' ? p.runScope : undefined;
  return TOOLS.filter((t) => {
    if (run && t.reach === 'organization') return false;
    if (t.action === 'write') return role !== null && roleAllows(role, 'write');
    return role !== null;
  });
}

/** the README's table of tools: name, what it does, who is offered it */
export function toolListMarkdown(): string {
  const rows = TOOLS.map((t) => {
    const who = t.action === 'write' ? 'DEVOPS and up' : 'every member';
    const run = t.reach === 'organization' ? 'no' : t.action === 'write' ? 'when `platform_access` is `ACT`' : 'yes';
    const hints = t.action === 'write' ? [t.hints?.destructiveHint ? 'destructive' : 'not destructive', t.hints?.idempotentHint ? 'idempotent' : ''].filter(Boolean).join(', ') : 'read-only';
    return `| \`${t.name}\` | ${t.description.replace(/\|/g, '\\|')} | ${who} | ${run} | ${hints} |`;
  });
  return ['| tool | what it does | offered to | in a workflow run | hints |', '|---|---|---|---|---|', ...rows].join('\n');
}
