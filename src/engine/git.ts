// The engine's git policy, shared by the drivers' clones, agent workspaces and the modules that ask
// a remote something (git-push's ls-remote, the services' URL checks): which git URLs berth agrees
// to use, and the environment every git berth runs gets. Only network transports git knows (https,
// http, ssh, git://, scp-like `user@host:path`) are allowed; local paths and file:// only when the
// operator allows them (they read the host's disk); remote helpers such as `ext::` (which run
// commands) are refused here and again by GIT_ALLOW_PROTOCOL. No prompts, no credential helpers, no
// hooks. A token becomes an HTTP Authorization header passed through GIT_CONFIG_* environment
// variables, scoped to the repository's origin, so it never appears in argv or in the logs.
import { redactUrls } from '../lib/net.ts';

export interface GitSource {
  url: string; branch: string | null; commit: string | null; rootPath: string | null;
  /** sent as the password of HTTP basic auth, to the repository's origin only */
  token?: string | null;
  /** the user name sent with the token when the URL has none (default x-access-token) */
  username?: string | null;
}

const NETWORK_SCHEMES = ['https', 'http', 'ssh', 'git', 'git+ssh', 'ssh+git'];
const LOCAL_REFUSED = 'local git repositories (paths and file:// URLs) are not allowed on this server (set ENGINE_ALLOW_LOCAL_GIT=true to allow them)';

/** null when berth may clone this URL, else the reason it may not (shown to the user) */
export function checkGitUrl(url: string, allowLocal: boolean): string | null {
  if (!url.trim()) return 'git URL is empty';
  const helper = /^([A-Za-z0-9+.-]+)::/.exec(url);
  if (helper) return `git transport "${helper[1]}::" is not allowed (allowed: ${NETWORK_SCHEMES.slice(0, 4).join(', ')})`;
  if (url.startsWith('-')) return 'git URL must not start with "-"';
  if (/[\s\x00-\x1f\x7f]/.test(url)) return 'git URL must not contain spaces or control characters';
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(url);
  if (scheme) {
    const name = scheme[1]!.toLowerCase();
    if (name === 'file') return allowLocal ? null : LOCAL_REFUSED;
    if (!NETWORK_SCHEMES.includes(name)) return `git transport "${name}://" is not allowed (allowed: ${NETWORK_SCHEMES.slice(0, 4).join(', ')})`;
    let parsed: URL;
    try { parsed = new URL(url); } catch { return 'git URL is not a valid URL'; }
    if (!parsed.hostname || parsed.hostname.startsWith('-') || parsed.username.startsWith('-')) return 'git URL has no valid host';
    return null;
  }
  // git reads `[user@]host:path` (a colon before any slash) as ssh; anything else is a local path
  const colon = url.indexOf(':');
  const slash = url.indexOf('/');
  if (colon > 0 && (slash < 0 || colon < slash)) {
    const host = url.slice(0, colon).replace(/^[^@]*@/, '');
    if (!host || host.startsWith('-') || host.startsWith('[-')) return 'git URL has no valid host';
    return null;
  }
  return allowLocal ? null : LOCAL_REFUSED;
}

/** the origin an https/http URL's credentials are scoped to, null for other transports */
function httpOrigin(url: string): { origin: string; username: string } | null {
  if (!/^https?:\/\//i.test(url)) return null;
  try {
    const u = new URL(url);
    return { origin: `${u.protocol}//${u.host}/`, username: decodeURIComponent(u.username) };
  } catch { return null; }
}

/** the environment every git berth runs gets: no prompts, hooks or credential helpers, allowed
 * transports only, the token (if any) as an Authorization header scoped to the URL's origin */
export function gitEnv(source: GitSource, allowLocal: boolean): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith('GIT_') && k !== 'GIT_SSH_COMMAND' && k !== 'GIT_SSH') continue;
    if (k === 'SSH_ASKPASS') continue;
    env[k] = v;
  }
  const config: Array<[string, string]> = [
    ['credential.helper', ''],
    ['core.hooksPath', '/dev/null'],
    ['advice.detachedHead', 'false'],
    ['init.defaultBranch', 'main'],
  ];
  const http = source.token ? httpOrigin(source.url) : null;
  if (http && source.token) {
    const basic = Buffer.from(`${http.username || source.username || 'x-access-token'}:${source.token}`).toString('base64');
    config.push([`http.${http.origin}.extraHeader`, `Authorization: Basic ${basic}`]);
  }
  env.GIT_CONFIG_COUNT = String(config.length);
  config.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  env.GIT_ALLOW_PROTOCOL = allowLocal ? 'https:http:ssh:git:file' : 'https:http:ssh:git';
  env.GIT_TERMINAL_PROMPT = '0';
  env.GIT_ASKPASS = '/bin/false';
  env.GIT_SSH_COMMAND ??= 'ssh -o BatchMode=yes';
  env.LC_ALL = 'C';
  return env;
}

/** the line that best says why git failed: its last fatal/error line, else its last line */
export function lastErrorLine(tail: string[], fallback: string): string {
  const errors = tail.filter((l) => /^(fatal|error):/i.test(l));
  return redactUrls(errors.at(-1) ?? tail.at(-1) ?? fallback);
}
