// Governance enforced by the network: which hosts a run may reach (governance.host_allowlist plus
// what the run itself needs: the model endpoint, the attached connectors' and the repositories'
// hosts) and the allowlisting egress proxy (Debian's tinyproxy, inside the run's own image) that
// is the run container's only way out. Pure rendering here; runner.ts starts the proxy container.
import type { AgentRunSpec } from './spec.ts';

export const PROXY_PORT = 3128;
export const PROXY_ALIAS = 'egress';
const ANTHROPIC_API_HOST = 'api.anthropic.com';

/** the host of a URL-ish string (https://h:1/p, user@h:path, h:port, h), lower-case; null when none */
export function hostOf(value: string): string | null {
  const text = value.trim();
  if (!text) return null;
  try {
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
      const u = new URL(text);
      if (u.protocol === 'file:') return null;
      return u.hostname.replace(/^\[|\]$/g, '').toLowerCase() || null;
    }
  } catch {
    return null;
  }
  const scp = /^[^@/\s]+@([^:/\s]+):/.exec(text); // git's user@host:path
  if (scp) return scp[1]!.toLowerCase();
  const bare = /^([a-z0-9*._-]+)(:\d+)?$/i.exec(text);
  return bare ? bare[1]!.toLowerCase() : null;
}

/** the model endpoint's host: the gateway, Bedrock's regional endpoint or Anthropic's API */
function modelHost(model: AgentRunSpec['model']): string | null {
  if (model.baseUrl) return hostOf(model.baseUrl);
  if (model.kind === 'bedrock') return model.region ? `bedrock-runtime.${model.region}.amazonaws.com` : null;
  return ANTHROPIC_API_HOST;
}

/** every host the proxy lets through, sorted; `*.example.com` entries allow any subdomain */
export function allowedHosts(spec: Pick<AgentRunSpec, 'hostAllowlist' | 'model' | 'mcpServers' | 'repositories' | 'berthMcpUrl'>): string[] {
  const hosts = new Set<string>();
  const add = (h: string | null) => { if (h) hosts.add(h); };
  for (const entry of spec.hostAllowlist) add(hostOf(entry));
  add(modelHost(spec.model));
  // berth's own endpoint is let through by its exact URL (filterLines), never its whole host
  for (const server of Object.values(spec.mcpServers)) if ('url' in server && server.url !== spec.berthMcpUrl) add(hostOf(server.url));
  for (const repo of spec.repositories) add(hostOf(repo.url));
  return [...hosts].sort();
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** a host as a pattern: exact, or `*.example.com` for any subdomain */
const hostPattern = (h: string) => (h.startsWith('*.') ? `([a-z0-9-]+\\.)+${escapeRegex(h.slice(2))}` : escapeRegex(h));

/** one URL exactly: a plain one by scheme, host, port and path; an https one by host and port
 * (a CONNECT's `host:port` is all the proxy sees of it) */
function exactUrlLine(url: string): string {
  const u = new URL(url);
  if (u.protocol === 'https:') return `^${escapeRegex(u.hostname)}:${u.port || '443'}$`;
  return `^${escapeRegex(`http://${u.host}${u.pathname}`)}$`;
}

/**
 * One extended regular expression per allowed host (and exact URL), matched by tinyproxy with
 * FilterURLs On against what a request names: a plain request's absolute URL
 * (`http://host:port/path?query`), a CONNECT's `host:port` (measured on Debian's tinyproxy 1.11).
 */
export function filterLines(hosts: readonly string[], exactUrls: readonly string[] = []): string[] {
  return [...hosts.map((h) => `^(http://)?${hostPattern(h)}(:[0-9]+)?(/.*)?$`), ...exactUrls.map(exactUrlLine)];
}

/** tinyproxy's configuration: deny by default, allow what the filter's lines match (URLs and CONNECT targets), log refusals */
export function proxyConfig(filterPath: string): string {
  return [
    'User nobody',
    'Group nogroup',
    `Port ${PROXY_PORT}`,
    'Timeout 900',
    'MaxClients 200',
    'LogLevel Info',
    'DisableViaHeader Yes',
    `Filter "${filterPath}"`,
    'FilterType ere',
    'FilterURLs On',
    'FilterDefaultDeny Yes',
    'FilterCaseSensitive Off',
    '',
  ].join('\n');
}

export interface ProxyLogLine { kind: 'refused' | 'allowed'; host: string }

/** what a line of tinyproxy's log says about a request (null for the rest) */
export function parseProxyLine(line: string): ProxyLogLine | null {
  const refused = /Proxying refused on filtered (?:domain|url) "([^"]+)"/i.exec(line);
  // with FilterURLs On a refusal names the URL (or a CONNECT's host:port): the host is what the log says
  if (refused) return { kind: 'refused', host: hostOf(refused[1]!) ?? refused[1]! };
  const ok = /Established connection to host "([^"]+)"/i.exec(line);
  if (ok) return { kind: 'allowed', host: ok[1]! };
  return null;
}
