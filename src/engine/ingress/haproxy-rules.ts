// A route's settings as HAProxy configuration, pure: the lines of its slot backend (access lists,
// CORS, basic auth, body limit, extra headers, timeouts, buffering, the sticky cookie), its
// userlist section, the options of its servers, and the digest that tells whether the running
// proxy already has these rules (rules.map, slot → digest). The runtime API cannot add rules to a
// backend, so a route whose rules change is written into the configuration and HAProxy reloaded
// (decision 0337); free slots carry the default rules, so a service with default settings is still
// added without any reload (decision 0334). The mapping key → directive is in decision 0337.
import { createHash } from 'node:crypto';
import { DEFAULT_ROUTE_SETTINGS, type RouteSettings } from './settings.ts';

/** the sticky-session cookie (the name Qovery's nginx ingress gives it) */
const STICKY_COOKIE = 'INGRESSCOOKIE';
/** how long browsers may cache a preflight answer (nginx ingress's default cors-max-age) */
const CORS_MAX_AGE = 1728000;
/** the longest the proxy waits for a buffered request body, as it waits for the headers (timeout http-request); then 408 */
const BODY_WAIT = '30s';

/** a single-quoted HAProxy word: taken literally (no environment expansion, no escapes); ' itself as '\'' */
export function quoted(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** a log-format value (headers HAProxy sets): % is its escape character */
const logFormat = (text: string): string => quoted(text.replace(/%/g, '%%'));

const userlistName = (slot: number): string => `berth-users-${slot}`;

/** keys in one order, whatever order an object was built in (read back from routes.json, say) */
const canonical = (v: unknown): unknown => (Array.isArray(v) ? v.map(canonical)
  : v !== null && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical((v as Record<string, unknown>)[k])])) : v);

/** whether two routes' rules render alike; the route id counts only when it is part of them (the cookie key) */
export function rulesDigest(settings: RouteSettings, id: string | null): string {
  const text = JSON.stringify(canonical(settings)) + (settings.sticky ? `\n${id}` : '');
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

export const DEFAULT_DIGEST = rulesDigest(DEFAULT_ROUTE_SETTINGS, null);

/** options of every server line (config file) and `add server` command (runtime API) of the route */
export function serverOptions(s: RouteSettings): string {
  return ` pool-purge-delay ${s.upstreamIdle}s`;
}

function corsLines(c: NonNullable<RouteSettings['cors']>): string[] {
  const preflight = [
    `hdr Access-Control-Allow-Methods ${logFormat(c.methods.join(', '))}`,
    `hdr Access-Control-Allow-Headers ${logFormat(c.headers.join(', '))}`,
    `hdr Access-Control-Allow-Credentials 'true'`,
    `hdr Access-Control-Max-Age '${CORS_MAX_AGE}'`,
  ].join(' ');
  if (c.origins.includes('*')) {
    return [
      `  http-request return status 204 hdr Access-Control-Allow-Origin '*' ${preflight} if METH_OPTIONS`,
      `  http-after-response set-header Access-Control-Allow-Origin '*'`,
      `  http-after-response set-header Access-Control-Allow-Credentials 'true'`,
    ];
  }
  const lines = [`  http-after-response add-header Vary 'Origin'`];
  if (c.origins.length === 0) return lines;
  const found = '{ var(txn.berth_cors_origin) -m found }';
  return [
    `  acl berth_cors_origin req.hdr(origin) -m str ${c.origins.map(quoted).join(' ')}`,
    '  http-request set-var(txn.berth_cors_origin) req.hdr(origin) if berth_cors_origin',
    `  http-request return status 204 hdr Access-Control-Allow-Origin '%[var(txn.berth_cors_origin)]' ${preflight} if METH_OPTIONS berth_cors_origin`,
    `  http-after-response set-header Access-Control-Allow-Origin '%[var(txn.berth_cors_origin)]' if ${found}`,
    `  http-after-response set-header Access-Control-Allow-Credentials 'true' if ${found}`,
    ...lines,
  ];
}

/**
 * The rule lines of a slot backend (after its `balance`), in the order HAProxy evaluates them:
 * source ranges (403), the CORS preflight (204, before auth: browsers send no credentials on
 * it), basic auth (401), the body limit (413); then the headers set on every answer, the
 * proxy's own included (http-after-response). Request buffering waits for the body only after
 * them (an action, not `option http-buffer-request`, which waits before any rule).
 */
export function backendRules(slot: number, id: string | null, s: RouteSettings): string[] {
  return [
    ...(s.connectTimeout > 0 ? [`  timeout connect ${s.connectTimeout}s`] : []),
    ...(s.serverTimeout > 0 ? [`  timeout server ${s.serverTimeout}s`] : []),
    ...(s.sticky && id !== null ? [`  cookie ${STICKY_COOKIE} insert indirect nocache httponly dynamic`, `  dynamic-cookie-key ${quoted(id)}`] : []),
    ...(s.allow === null ? [] : s.allow.length === 0 ? ['  http-request deny deny_status 403'] : [`  http-request deny deny_status 403 if !{ src ${s.allow.join(' ')} }`]),
    ...(s.deny.length > 0 ? [`  http-request deny deny_status 403 if { src ${s.deny.join(' ')} }`] : []),
    ...(s.cors ? corsLines(s.cors) : []),
    ...(s.users ? [`  http-request auth realm berth unless { http_auth(${userlistName(slot)}) }`] : []),
    ...(s.maxBodyBytes > 0 ? [`  http-request deny deny_status 413 if { req.hdr_val(content-length) gt ${s.maxBodyBytes} }`] : []),
    // last: the checks above answer on the headers alone; then the body (up to the 16 kB buffer) before the replica is connected
    ...(s.bufferRequests ? [`  http-request wait-for-body time ${BODY_WAIT}`] : []),
    ...s.headers.map(([name, value]) => `  http-after-response set-header ${quoted(name)} ${logFormat(value)}`),
  ];
}

/** the userlist section of a slot whose route has basic auth (crypt(3) hashes, checked by HAProxy) */
export function userlist(slot: number, s: RouteSettings): string[] {
  if (!s.users) return [];
  return [`userlist ${userlistName(slot)}`, ...s.users.map((u) => `  user ${quoted(u.login)} password ${quoted(u.hash)}`), ''];
}
