// The shape of an agentic workflow's raw `mcp` text (pure), in either of the two forms people
// already have, normalised here into one: the agent harness's own MCP configuration (Claude
// Code's `--mcp-config`). Checked when a workflow is saved so that a run never starts with a
// configuration the harness would refuse; the runner parses the same text with this same function
// and renders the servers, together with the attached connectors, into the harness's
// configuration. The text itself is stored and returned as the user gave it (decision 0344).
//
//   {"mcpServers": {NAME: ENTRY, …}}        Claude Code, Claude Desktop, Cursor: the harness's form
//   {"servers": {NAME: ENTRY, …}, "inputs"?: []}   VS Code (.vscode/mcp.json): same entries, other key
//   NAME: 1 to 64 of A-Z a-z 0-9 _ -
//   ENTRY, stdio:  {"command": string, "args"?: [string…], "env"?: {NAME: string}, "type"?: "stdio"}
//   ENTRY, remote: {"type": "http" | "sse", "url": http(s) URL, "headers"?: {NAME: string}}
//
// VS Code's `inputs` (values it prompts for when a server starts, referenced as ${input:ID}) are
// refused: a run is unattended. Every entry, whatever the form, goes through the same checks.
// Empty text means no servers. Every problem is listed, each starting with its JSON path.
import { shown } from '../../http/validation-messages.ts';
import { boundProblems, jsonMember as at } from './model-settings.ts';

interface McpStdioEntry { type: 'stdio'; command: string; args: string[]; env: Record<string, string> }
interface McpRemoteEntry { type: 'http' | 'sse'; url: string; headers: Record<string, string> }
/** one server, its optional members filled in (args [], env {}, headers {}) */
export type McpEntry = McpStdioEntry | McpRemoteEntry;

export type McpConfigResult = { ok: true; servers: Record<string, McpEntry> } | { ok: false; problems: string[] };

const MCP_SERVER_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const MCP_TRANSPORTS = Object.freeze(['stdio', 'http', 'sse'] as const);

const STDIO_MEMBERS = ['type', 'command', 'args', 'env'];
const REMOTE_MEMBERS = ['type', 'url', 'headers'];
/** an HTTP header name (RFC 9110 token) */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** what berth offers instead of a prompted value (VS Code's inputs) */
const UNATTENDED = 'a berth run is unattended, with nobody to ask. Write the value itself in the text (it is stored and returned as written: '
  + 'no secrets), or, for a secret header of a remote server, attach an MCP connector (mcp_servers), whose header values berth keeps sealed';
/** members VS Code's servers may have that the harness has not, and why berth does not take them */
const NOT_CARRIED: Record<string, string> = {
  envFile: 'it names a file on the machine the configuration was written on, which a run does not have; put the variables in env',
  cwd: 'the harness starts stdio servers in the run\'s working directory (/workspace); use absolute paths in command and args',
};

type Problems = string[];

/** the servers of a workflow's `mcp` text in the harness's form, or every problem of it (`$` is the text itself) */
export function parseMcpConfig(text: string): McpConfigResult {
  if (text.trim() === '') return { ok: true, servers: {} };
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    return { ok: false, problems: [`$ must be JSON text (or empty): ${(err as Error).message}`] };
  }
  const problems: Problems = [];
  if (!isObject(doc)) return { ok: false, problems: [`$ must be a JSON object {"mcpServers": {…}} (or VS Code's {"servers": {…}}); got ${shown(doc)}`] };
  // the one normalisation: VS Code's `servers` holds the same entries as the harness's `mcpServers`
  const both = 'mcpServers' in doc && 'servers' in doc;
  const key = 'servers' in doc && !both ? 'servers' : 'mcpServers';
  // which of the two the author meant is not for berth to guess
  if (both) problems.push('$ must have either mcpServers (Claude Code\'s form) or servers (VS Code\'s form), not both: keep one of them, with all the servers');
  for (const member of Object.keys(doc)) {
    if (member === 'mcpServers' || member === 'servers') continue;
    if (member === 'inputs' && (key === 'servers' || both)) {
      // files VS Code writes often carry "inputs": []; an empty list asks for nothing
      if (!Array.isArray(doc.inputs) || doc.inputs.length > 0) problems.push(`$.inputs is not supported: VS Code asks for these values when a server starts, and ${UNATTENDED}`);
      continue;
    }
    problems.push(`${at('$', member)} is not a known member; ${key === 'servers' ? 'the members of VS Code\'s form are servers and inputs' : 'the only member is mcpServers'}`);
  }
  const servers: Array<[string, McpEntry]> = [];
  if (both) {
    // refused above
  } else if (!(key in doc)) {
    problems.push('$.mcpServers is required (an object of servers by name; {"mcpServers": {}} for none); VS Code\'s {"servers": {…}} is accepted too');
  } else if (!isObject(doc[key])) {
    problems.push(`$.${key} must be an object of servers by name; got ${shown(doc[key])}`);
  } else {
    for (const [name, raw] of Object.entries(doc[key])) {
      const path = at(`$.${key}`, name);
      if (!MCP_SERVER_NAME.test(name)) problems.push(`${path} is not a valid server name: 1 to 64 letters, digits, "_" or "-"`);
      const entry = checkEntry(path, raw, problems);
      if (entry) servers.push([name, entry]);
    }
  }
  // the harness expands ${VAR} in its MCP configuration, and a run's environment holds the model's
  // credential (possibly a shared provider's, which the author may use but not read). Read in the
  // parsed document, not the text: JSON's escapes ("\u0024{…}") would hide one from the text.
  for (const [path, value] of stringsOf('$', doc, ['inputs'])) {
    const input = /\$\{input:([^}]*)\}/.exec(value);
    if (input) problems.push(`${path} refers to \${input:${input[1]}}, a value VS Code asks for when the server starts: ${UNATTENDED}`);
    else if (value.includes('${')) problems.push(`${path} must not contain \${…} references: the harness would expand them from the run's environment, where berth keeps the model's credential`);
  }
  if (problems.length > 0) return { ok: false, problems: boundProblems(problems) };
  return { ok: true, servers: Object.fromEntries(servers) };
}

/** every string of a JSON value (object keys too, reported at their member's path), depth first; `skip`: top-level members left out */
function stringsOf(path: string, value: unknown, skip: readonly string[] = []): Array<[string, string]> {
  if (typeof value === 'string') return [[path, value]];
  if (Array.isArray(value)) return value.flatMap((v, i) => stringsOf(`${path}[${i}]`, v));
  if (!isObject(value)) return [];
  return Object.entries(value).filter(([k]) => !skip.includes(k)).flatMap(([k, v]) => {
    const p = at(path, k);
    return [...(k.includes('${') ? [[p, k] as [string, string]] : []), ...stringsOf(p, v)];
  });
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
    if (known.includes(key)) continue;
    if (!remote && Object.hasOwn(NOT_CARRIED, key)) problems.push(`${at(path, key)} is not supported: ${NOT_CARRIED[key]}`);
    else problems.push(`${at(path, key)} is not a known member of ${remote ? `an ${String(type)}` : 'a stdio'} server; its members are ${known.join(', ')}`);
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
