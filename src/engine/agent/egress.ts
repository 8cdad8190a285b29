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
export function modelHost(model: AgentRunSpec['model']): string | null {
  if (model.baseUrl) return hostOf(model.baseUrl);
  if (model.kind === 'bedrock') return model.region ? `bedrock-runtime.${model.region}.amazonaws.com` : null;
  return ANTHROPIC_API_HOST;
}

/** every host the proxy lets through, sorted; `*.example.com` entries allow any subdomain */
export function allowedHosts(spec: Pick<AgentRunSpec, 'hostAllowlist' | 'model' | 'mcpServers' | 'repositories'>): string[] {
  const hosts = new Set<string>();
  const add = (h: string | null) => { if (h) hosts.add(h); };
  for (const entry of spec.hostAllowlist) add(hostOf(entry));
  add(modelHost(spec.model));
  for (const server of Object.values(spec.mcpServers)) if ('url' in server) add(hostOf(server.url));
  for (const repo of spec.repositories) add(hostOf(repo.url));
  return [...hosts].sort();
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** one extended regular expression per allowed host, matched by tinyproxy against the requested host */
export function filterLines(hosts: readonly string[]): string[] {
  return hosts.map((h) => (h.startsWith('*.') ? `^([a-z0-9-]+\\.)+${escapeRegex(h.slice(2))}$` : `^${escapeRegex(h)}$`));
}

/** tinyproxy's configuration: deny by default, allow the filter's hosts (plain HTTP and CONNECT), log refusals */
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
    'FilterURLs Off',
    'FilterDefaultDeny Yes',
    'FilterCaseSensitive Off',
    '',
  ].join('\n');
}

export interface ProxyLogLine { kind: 'refused' | 'allowed'; host: string }

/** what a line of tinyproxy's log says about a request (null for the rest) */
export function parseProxyLine(line: string): ProxyLogLine | null {
  const refused = /Proxying refused on filtered (?:domain|url) "([^"]+)"/i.exec(line);
  if (refused) return { kind: 'refused', host: refused[1]! };
  const ok = /Established connection to host "([^"]+)"/i.exec(line);
  if (ok) return { kind: 'allowed', host: ok[1]! };
  return null;
}
