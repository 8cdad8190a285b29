// A route's ingress settings, pure: what a service's `network.ingress.*` advanced settings (and,
// for basic auth, the variable they name) mean for berth's HAProxy ingress, normalised into a
// small JSON-safe object that haproxy-rules.ts renders into the route's backend (decision 0337).
// Everything in it ends up in HAProxy's configuration text, so every field is checked here against
// a strict shape (checkSettings) whatever its origin: the advanced settings were validated when
// written, but routes.json and direct callers reach the proxy too. Notes say what could not be
// applied; they never contain a password hash or a login.
import { parseCidr } from '../../lib/cidr.ts';
import { IngressInputError } from './errors.ts';

export interface RouteSettings {
  /** client CIDRs let through; null = everyone, [] = nobody (a list with no valid entry) */
  allow: string[] | null;
  /** client CIDRs refused (403) */
  deny: string[];
  /** basic auth: null = none; [] = on but no usable user (every request 401) */
  users: Array<{ login: string; hash: string }> | null;
  /** response headers set on every answer */
  headers: Array<[string, string]>;
  /** 413 above this Content-Length; 0 = no limit */
  maxBodyBytes: number;
  /** CORS answered by the proxy: origins ['*'] or a list, methods and headers allowed */
  cors: { origins: string[]; methods: string[]; headers: string[] } | null;
  /** seconds; 0 = the ingress's own limit (timeout connect 5 s, timeout server 1 h) */
  connectTimeout: number;
  serverTimeout: number;
  /** seconds an idle connection to a replica is kept before HAProxy starts closing them (pool-purge-delay) */
  upstreamIdle: number;
  /** wait for the request body before connecting to the replica (option http-buffer-request) */
  bufferRequests: boolean;
  /** a cookie keeps a client on one replica */
  sticky: boolean;
}

const DEFAULTS: Record<string, unknown> = {
  'network.ingress.proxy_body_size_mb': 100,
  'network.ingress.enable_cors': false,
  'network.ingress.cors_allow_origin': '*',
  'network.ingress.cors_allow_methods': 'GET, PUT, POST, DELETE, PATCH, OPTIONS',
  'network.ingress.cors_allow_headers': 'DNT,Keep-Alive,User-Agent,X-Requested-With,If-Modified-Since,Cache-Control,Content-Type,Range,Authorization',
  'network.ingress.keepalive_timeout_seconds': 60,
  'network.ingress.proxy_connect_timeout_seconds': 60,
  'network.ingress.proxy_send_timeout_seconds': 60,
  'network.ingress.proxy_read_timeout_seconds': 60,
  // a key of containers only; applications get nginx's default, on
  'network.ingress.proxy_request_buffering': 'on',
  'network.ingress.whitelist_source_range': '0.0.0.0/0',
  'network.ingress.denylist_source_range': '',
  'network.ingress.basic_auth_env_var': '',
  'network.ingress.enable_sticky_session': false,
  'network.ingress.extra_headers': '{}',
};

/** HAProxy keeps timeouts in signed 32-bit milliseconds: about 24.8 days */
const MAX_SECONDS = 2_000_000;
const MAX_BODY_MB = 1_000_000_000;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/[A-Za-z0-9.-]+(?::[0-9]{1,5})?$/;
const LOGIN = /^[A-Za-z0-9._@+~-]{1,128}$/;
/** crypt(3) outputs: $id$[params$]salt$hash (md5crypt, sha-crypt, bcrypt, yescrypt…) or 13-character DES */
const CRYPT = /^(?:\$[0-9a-z]{1,8}\$[A-Za-z0-9./$=]{1,300}|[A-Za-z0-9./]{13})$/;
/** headers that frame the message or belong to one connection: an extra header must not replace them */
const FRAMING = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer', 'proxy-connection']);
const VALUE = /^[^\u0000-\u0008\u000a-\u001f\u007f]{0,4096}$/;

const list = (text: unknown): string[] => (typeof text === 'string' ? text.split(',').map((e) => e.trim()).filter((e) => e !== '') : []);
const seconds = (v: unknown): number => (Number.isInteger(v) && (v as number) > 0 ? Math.min(v as number, MAX_SECONDS) : 0);

function cidrs(text: unknown, key: string, notes: string[]): string[] {
  const out: string[] = [];
  for (const entry of list(text)) {
    const parsed = parseCidr(entry);
    if (parsed.ok) out.push(parsed.cidr);
    else notes.push(`${key}: "${entry}" is not a CIDR range (${parsed.reason}); left out`);
  }
  return [...new Set(out)];
}

/** htpasswd lines (`login:crypted_password`, separated by newlines or commas); what HAProxy can check */
export function parseHtpasswd(text: string, notes: string[]): Array<{ login: string; hash: string }> {
  const users: Array<{ login: string; hash: string }> = [];
  text.split(/[\r\n,]+/).map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#')).forEach((line, i) => {
    const colon = line.indexOf(':');
    const [login, hash] = colon < 0 ? [line, ''] : [line.slice(0, colon), line.slice(colon + 1)];
    if (!LOGIN.test(login)) notes.push(`basic auth: entry ${i + 1} has a login HAProxy cannot take (letters, digits and . _ @ + ~ - only); left out`);
    else if (hash.startsWith('$apr1$')) notes.push(`basic auth: entry ${i + 1} uses Apache's $apr1$ MD5, which HAProxy's crypt(3) cannot check: create it with htpasswd -B (bcrypt) or openssl passwd -6; left out`);
    else if (!CRYPT.test(hash)) notes.push(`basic auth: entry ${i + 1} is not login:crypted_password (a crypt(3) hash such as $6$…, $5$…, $2y$…); left out`);
    else if (users.some((u) => u.login === login)) notes.push(`basic auth: entry ${i + 1} repeats a login; the first one counts`);
    else users.push({ login, hash });
  });
  return users;
}

function extraHeaders(text: unknown, notes: string[]): Array<[string, string]> {
  let parsed: unknown;
  try { parsed = JSON.parse(typeof text === 'string' ? text : '{}'); } catch { parsed = null; }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    notes.push('extra_headers: not a JSON object; no header added');
    return [];
  }
  const out: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(parsed)) {
    const text = typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : null;
    if (!TOKEN.test(name) || FRAMING.has(name.toLowerCase()) || text === null || !VALUE.test(text)) {
      notes.push(`extra_headers: "${name.slice(0, 64)}" cannot be set by the proxy (an HTTP token name other than a framing header, a one-line string value); left out`);
    } else out.push([name, text]);
  }
  return out;
}

function cors(get: (key: string) => unknown, notes: string[]): RouteSettings['cors'] {
  if (get('network.ingress.enable_cors') !== true) return null;
  const asked = list(get('network.ingress.cors_allow_origin'));
  const origins = asked.includes('*') ? ['*'] : asked.filter((o) => ORIGIN.test(o));
  for (const o of asked.filter((x) => x !== '*' && !ORIGIN.test(x))) notes.push(`cors_allow_origin: "${o.slice(0, 100)}" is not * or an origin such as https://app.example.com; left out`);
  const tokens = (key: string) => list(get(key)).filter((t) => TOKEN.test(t));
  return { origins, methods: tokens('network.ingress.cors_allow_methods'), headers: tokens('network.ingress.cors_allow_headers') };
}

/**
 * The route settings of a service: its complete advanced settings (missing keys take the
 * catalogue's defaults) and its variables (only the one basic_auth_env_var names is read).
 */
export function routeSettingsOf(advanced: Readonly<Record<string, unknown>>, env: Readonly<Record<string, string>> = {}): { settings: RouteSettings; notes: string[] } {
  const notes: string[] = [];
  const get = (key: string): unknown => (advanced[key] !== undefined ? advanced[key] : DEFAULTS[key]);
  const allow = cidrs(get('network.ingress.whitelist_source_range'), 'whitelist_source_range', notes);
  // 0.0.0.0/0 "allows all" (the catalogue's meaning), IPv6 clients included; an empty list restricts nothing
  const everyone = allow.includes('0.0.0.0/0') || allow.includes('::/0') || list(get('network.ingress.whitelist_source_range')).length === 0;
  const variable = get('network.ingress.basic_auth_env_var');
  let users: RouteSettings['users'] = null;
  if (typeof variable === 'string' && variable !== '') {
    const value = env[variable];
    if (value === undefined) notes.push(`basic auth: the service has no variable ${variable} (basic_auth_env_var): every request is refused with 401`);
    users = parseHtpasswd(value ?? '', notes);
    if (value !== undefined && users.length === 0) notes.push(`basic auth: ${variable} holds no usable login:crypted_password line: every request is refused with 401`);
  }
  const read = seconds(get('network.ingress.proxy_read_timeout_seconds'));
  const send = seconds(get('network.ingress.proxy_send_timeout_seconds'));
  const bodyMb = Number(get('network.ingress.proxy_body_size_mb'));
  const settings: RouteSettings = {
    allow: everyone ? null : allow,
    deny: cidrs(get('network.ingress.denylist_source_range'), 'denylist_source_range', notes),
    users,
    headers: extraHeaders(get('network.ingress.extra_headers'), notes),
    maxBodyBytes: Number.isInteger(bodyMb) && bodyMb > 0 ? Math.min(bodyMb, MAX_BODY_MB) * 1024 * 1024 : 0,
    cors: cors(get, notes),
    connectTimeout: seconds(get('network.ingress.proxy_connect_timeout_seconds')),
    serverTimeout: read > 0 && send > 0 ? Math.max(read, send) : 0,
    upstreamIdle: seconds(get('network.ingress.keepalive_timeout_seconds')),
    bufferRequests: get('network.ingress.proxy_request_buffering') !== 'off',
    sticky: get('network.ingress.enable_sticky_session') === true,
  };
  return { settings, notes };
}

/** the settings of a route no service configured: the catalogue's defaults */
export const DEFAULT_ROUTE_SETTINGS: RouteSettings = Object.freeze(routeSettingsOf({}).settings) as RouteSettings;

const bad = (what: string): never => { throw new IngressInputError(`ingress: route settings: ${what}`); };
const strings = (v: unknown, ok: (s: string) => boolean, what: string): string[] =>
  Array.isArray(v) && v.every((s) => typeof s === 'string' && ok(s)) ? [...v] as string[] : bad(what);
const int = (v: unknown, max: number, what: string): number => (Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) <= max ? v as number : bad(what));
const cidrText = (s: string) => { const p = parseCidr(s); return p.ok && p.cidr === s; };

/** a route's settings as given to the ingress (an input, routes.json), checked field by field: safe to render */
export function checkSettings(input: unknown): RouteSettings {
  const s = (input ?? bad('not an object')) as Record<string, unknown>;
  if (typeof s !== 'object') bad('not an object');
  const users = s.users === null ? null : Array.isArray(s.users) ? s.users.map((u: { login?: unknown; hash?: unknown }) => (
    typeof u?.login === 'string' && LOGIN.test(u.login) && typeof u.hash === 'string' && CRYPT.test(u.hash) ? { login: u.login, hash: u.hash } : bad('a basic-auth user is not a login and a crypt(3) hash')
  )) : bad('users is neither null nor a list');
  if (users && new Set(users.map((u) => u.login)).size !== users.length) bad('a basic-auth login appears twice');
  const headers = Array.isArray(s.headers) ? s.headers.map((h: unknown) => (
    Array.isArray(h) && h.length === 2 && typeof h[0] === 'string' && TOKEN.test(h[0]) && !FRAMING.has(h[0].toLowerCase()) && typeof h[1] === 'string' && VALUE.test(h[1])
      ? [h[0], h[1]] as [string, string] : bad('an extra header is not a [token, one-line value] pair')
  )) : bad('headers is not a list');
  const c = s.cors as Record<string, unknown> | null | undefined;
  const corsOk = c === null ? null : typeof c === 'object' && c !== null ? {
    origins: strings(c.origins, (o) => o === '*' || ORIGIN.test(o), 'a CORS origin is neither * nor scheme://host[:port]'),
    methods: strings(c.methods, (t) => TOKEN.test(t), 'a CORS method is not a token'),
    headers: strings(c.headers, (t) => TOKEN.test(t), 'a CORS header is not a token'),
  } : bad('cors is neither null nor an object');
  const flag = (v: unknown, what: string) => (typeof v === 'boolean' ? v : bad(`${what} is not a boolean`));
  return {
    allow: s.allow === null ? null : strings(s.allow, cidrText, 'allow is neither null nor a list of normalised CIDRs'),
    deny: strings(s.deny, cidrText, 'deny is not a list of normalised CIDRs'),
    users, headers, cors: corsOk,
    maxBodyBytes: int(s.maxBodyBytes, MAX_BODY_MB * 1024 * 1024, 'maxBodyBytes'),
    connectTimeout: int(s.connectTimeout, MAX_SECONDS, 'connectTimeout'),
    serverTimeout: int(s.serverTimeout, MAX_SECONDS, 'serverTimeout'),
    upstreamIdle: int(s.upstreamIdle, MAX_SECONDS, 'upstreamIdle'),
    bufferRequests: flag(s.bufferRequests, 'bufferRequests'),
    sticky: flag(s.sticky, 'sticky'),
  };
}
