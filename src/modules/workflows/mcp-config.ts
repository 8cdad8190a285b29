// The shape of an agentic workflow's raw `mcp` text (pure): the agent harness's own MCP
// configuration (Claude Code's `--mcp-config`), checked when a workflow is saved so that a run
// never starts with a configuration the harness would refuse. The runner renders the parsed
// servers, together with the attached connectors, into the harness's configuration.
//
//   {"mcpServers": {NAME: ENTRY, …}}        NAME: 1 to 64 of A-Z a-z 0-9 _ -
//   ENTRY, stdio:  {"command": string, "args"?: [string…], "env"?: {NAME: string}, "type"?: "stdio"}
//   ENTRY, remote: {"type": "http" | "sse", "url": http(s) URL, "headers"?: {NAME: string}}
//
// Empty text means no servers. Every problem is listed, each starting with its JSON path.
import { shown } from '../../http/validation-messages.ts';
import { boundProblems, jsonMember as at } from './model-settings.ts';

export interface McpStdioEntry { type: 'stdio'; command: string; args: string[]; env: Record<string, string> }
export interface McpRemoteEntry { type: 'http' | 'sse'; url: string; headers: Record<string, string> }
/** one server, its optional members filled in (args [], env {}, headers {}) */
export type McpEntry = McpStdioEntry | McpRemoteEntry;

export type McpConfigResult = { ok: true; servers: Record<string, McpEntry> } | { ok: false; problems: string[] };

export const MCP_SERVER_NAME = /^[A-Za-z0-9_-]{1,64}$/;
export const MCP_TRANSPORTS = Object.freeze(['stdio', 'http', 'sse'] as const);

const STDIO_MEMBERS = ['type', 'command', 'args', 'env'];
const REMOTE_MEMBERS = ['type', 'url', 'headers'];
/** an HTTP header name (RFC 9110 token) */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

type Problems = string[];

/** the servers of a workflow's `mcp` text, or every problem of it (`$` is the text itself) */
export function parseMcpConfig(text: string): McpConfigResult {
  if (text.trim() === '') return { ok: true, servers: {} };
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    return { ok: false, problems: [`$ must be JSON text (or empty): ${(err as Error).message}`] };
  }
  const problems: Problems = [];
  if (!isObject(doc)) return { ok: false, problems: [`$ must be a JSON object {"mcpServers": {…}}; got ${shown(doc)}`] };
  for (const key of Object.keys(doc)) if (key !== 'mcpServers') problems.push(`${at('$', key)} is not a known member; the only member is mcpServers`);
  const servers: Array<[string, McpEntry]> = [];
  if (!('mcpServers' in doc)) problems.push('$.mcpServers is required (an object of servers by name; {"mcpServers": {}} for none)');
  else if (!isObject(doc.mcpServers)) problems.push(`$.mcpServers must be an object of servers by name; got ${shown(doc.mcpServers)}`);
  else {
    for (const [name, raw] of Object.entries(doc.mcpServers)) {
      const path = at('$.mcpServers', name);
      if (!MCP_SERVER_NAME.test(name)) problems.push(`${path} is not a valid server name: 1 to 64 letters, digits, "_" or "-"`);
      const entry = checkEntry(path, raw, problems);
      if (entry) servers.push([name, entry]);
    }
  }
  // the harness expands ${VAR} in its MCP configuration, and a run's environment holds the model's
  // credential (possibly a shared provider's, which the author may use but not read)
  if (text.includes('${')) problems.push('$ must not contain ${…} references: the harness would expand them from the run\'s environment, where berth keeps the model\'s credential');
  if (problems.length > 0) return { ok: false, problems: boundProblems(problems) };
  return { ok: true, servers: Object.fromEntries(servers) };
}

/** the entry with its defaults, or null after adding its problems */
function checkEntry(path: string, raw: unknown, problems: Problems): McpEntry | null {
  if (!isObject(raw)) {
    problems.push(`${path} must be an object: a stdio server {"command": …} or a remote one {"type": "http", "url": …}; got ${shown(raw)}`);
    return null;
  }
  const before = problems.length;
  const type = raw.type;
  if (type !== undefined && !(MCP_TRANSPORTS as readonly unknown[]).includes(type)) {
    problems.push(`${path}.type must be one of ${MCP_TRANSPORTS.join(', ')}; got ${shown(type)}`);
    return null;
  }
  if (type === undefined && 'url' in raw && !('command' in raw)) {
    problems.push(`${path}.type must be "http" or "sse" for a server with a url (a server without type is a stdio one and needs command)`);
    return null;
  }
  const remote = type === 'http' || type === 'sse';
  const known = remote ? REMOTE_MEMBERS : STDIO_MEMBERS;
  for (const key of Object.keys(raw)) {
    if (!known.includes(key)) problems.push(`${at(path, key)} is not a known member of ${remote ? `an ${String(type)}` : 'a stdio'} server; its members are ${known.join(', ')}`);
  }
  if (remote) {
    const url = checkUrl(`${path}.url`, raw.url, problems);
    const headers = checkStringMap(`${path}.headers`, raw.headers, 'header', problems);
    return problems.length === before ? { type, url: url!, headers: headers! } : null;
  }
  let command: string | null = null;
  if (raw.command === undefined) problems.push(`${path}.command is required (the program that starts the server, e.g. npx)`);
  else if (typeof raw.command !== 'string' || raw.command.trim() === '') problems.push(`${path}.command must be a non-empty string; got ${shown(raw.command)}`);
  else if (raw.command.includes('\u0000')) problems.push(`${path}.command must not contain NUL characters`);
  else command = raw.command;
  const args: string[] = [];
  if (raw.args !== undefined) {
    if (!Array.isArray(raw.args)) problems.push(`${path}.args must be an array of strings; got ${shown(raw.args)}`);
    else {
      raw.args.forEach((a: unknown, i: number) => {
        if (typeof a !== 'string') problems.push(`${path}.args[${i}] must be a string; got ${shown(a)}`);
        else if (a.includes('\u0000')) problems.push(`${path}.args[${i}] must not contain NUL characters`);
        else args.push(a);
      });
    }
  }
  const env = checkStringMap(`${path}.env`, raw.env, 'variable', problems);
  return problems.length === before ? { type: 'stdio', command: command!, args, env: env! } : null;
}

function checkUrl(path: string, raw: unknown, problems: Problems): string | null {
  if (raw === undefined) {
    problems.push(`${path} is required (the server's http or https address)`);
    return null;
  }
  if (typeof raw !== 'string') {
    problems.push(`${path} must be a string (an http or https URL); got ${shown(raw)}`);
    return null;
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    problems.push(`${path} must be an http or https URL; got ${shown(raw)}`);
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    problems.push(`${path} must be an http or https URL; got the scheme ${shown(url.protocol.slice(0, -1))}`);
    return null;
  }
  return raw;
}

/** env (names without "=" or NUL) and headers (RFC 9110 names, values on one line): string → string */
function checkStringMap(path: string, raw: unknown, kind: 'variable' | 'header', problems: Problems): Record<string, string> | null {
  if (raw === undefined) return {};
  if (!isObject(raw)) {
    problems.push(`${path} must be an object of ${kind === 'header' ? 'header names' : 'variable names'} to strings; got ${shown(raw)}`);
    return null;
  }
  const out: Array<[string, string]> = [];
  const before = problems.length;
  for (const [name, value] of Object.entries(raw)) {
    const p = at(path, name);
    if (kind === 'variable' && (name === '' || /[=\u0000]/.test(name))) problems.push(`${p} is not a valid variable name (empty, or with "=" or NUL)`);
    if (kind === 'header' && !HEADER_NAME.test(name)) problems.push(`${p} is not a valid header name (letters, digits and !#$%&'*+.^_\`|~-)`);
    if (typeof value !== 'string') problems.push(`${p} must be a string; got ${shown(value)}`);
    else if (kind === 'header' && /[\r\n\u0000]/.test(value)) problems.push(`${p} must not contain line breaks or NUL characters`);
    else if (kind === 'variable' && value.includes('\u0000')) problems.push(`${p} must not contain NUL characters`);
    else out.push([name, value]);
  }
  return problems.length === before ? Object.fromEntries(out) : null;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
