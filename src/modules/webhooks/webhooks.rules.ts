// Pure rules of organization webhooks: target URL validation, the subscription filters
// (events, project-name wildcards, environment types), the retry schedule (exponential back-off
// with jitter, Retry-After honoured, three days at most), what one attempt's answer means, and
// the Standard Webhooks signature and headers. Agentic workflow output deliveries use the same
// schedule, outcome and signing (src/workers/workflow-outputs.ts).
import { createHmac, randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { isPrivateAddress } from '../../lib/cidr.ts';

export interface FilterableWebhook {
  events: string[];
  project_names_filter: string[];
  environment_types_filter: string[];
}

/** `product*` matches `Products` (wildcard `*`, case-insensitive, whole name) */
export function wildcardMatch(pattern: string, name: string): boolean {
  const re = new RegExp('^' + pattern.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*') + '$', 'i');
  return re.test(name);
}

export function matchesFilters(hook: FilterableWebhook, kind: string, projectName?: string, environmentMode?: string): boolean {
  if (!hook.events.includes(kind)) return false;
  if (hook.project_names_filter.length > 0) {
    if (projectName === undefined || !hook.project_names_filter.some((p) => wildcardMatch(p, projectName))) return false;
  }
  if (hook.environment_types_filter.length > 0) {
    if (environmentMode === undefined || !hook.environment_types_filter.includes(environmentMode)) return false;
  }
  return true;
}

/** null when valid, else the reason */
export function targetUrlProblem(raw: string, allowPrivate: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'target_url must be an absolute http or https URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'target_url must be an absolute http or https URL';
  if (url.username || url.password) return 'target_url must not carry credentials';
  if (!allowPrivate) {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (host === 'localhost' || host.endsWith('.localhost') || (isIP(host) !== 0 && isPrivateAddress(host))) {
      return 'target_url must not point to a loopback, private, link-local or metadata address (set WEBHOOK_ALLOW_PRIVATE_TARGETS=true to allow such targets, e.g. on-premise)';
    }
  }
  return null;
}

/** the retry schedule of outgoing deliveries (organization webhooks and workflow outputs); a value
 * of the webhooks service, made from DEFAULT_RETRY_SETTINGS by the composition root (tests shorten it
 * for the app they build) */
export interface RetrySettings {
  /** first retry delay; each next one doubles (with ±50 % jitter) */
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  /** no retry once the event is this old */
  readonly giveUpAfterMs: number;
  /** per-attempt timeout */
  readonly timeoutMs: number;
}

export const DEFAULT_RETRY_SETTINGS: RetrySettings = Object.freeze({
  baseDelayMs: 5_000,
  maxDelayMs: 6 * 3600_000,
  giveUpAfterMs: 3 * 24 * 3600_000,
  timeoutMs: 15_000,
});

/** delay before attempt `attempt + 1` (attempt counts from 1), or null when giving up */
export function nextRetryDelayMs(settings: RetrySettings, attempt: number, ageMs: number, retryAfter: string | undefined, random = Math.random): number | null {
  let delay = Math.min(settings.maxDelayMs, settings.baseDelayMs * 2 ** (attempt - 1));
  delay = Math.round(delay * (0.5 + random()));
  const honoured = parseRetryAfterMs(retryAfter);
  if (honoured !== null) delay = Math.max(delay, Math.min(honoured, settings.maxDelayMs));
  if (ageMs + delay > settings.giveUpAfterMs) return null;
  return delay;
}

/** what one attempt's answer means: delivered (2xx), gone (410: never retried), or the delay
 * before the next attempt (null: no further attempt — delivered, gone, refused by the guard,
 * or too old); `ageMs` is how old the delivery is */
export function attemptOutcome(settings: RetrySettings, result: { status: number | null; retryAfter: string | undefined; refused: boolean }, attempt: number, ageMs: number): {
  ok: boolean; gone: boolean; retryInMs: number | null;
} {
  const ok = result.status !== null && result.status >= 200 && result.status < 300;
  const gone = result.status === 410;
  const retryInMs = ok || gone || result.refused ? null : nextRetryDelayMs(settings, attempt, ageMs, result.retryAfter);
  return { ok, gone, retryInMs };
}

export function parseRetryAfterMs(value: string | undefined, now = Date.now()): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** a new Standard Webhooks secret: `whsec_` + base64 of 24 random bytes */
export function generateSigningSecret(): string {
  return 'whsec_' + randomBytes(24).toString('base64');
}

/** the HMAC key: the base64 after `whsec_` (a user-given secret without the prefix is read as
 * base64 too, as the Standard Webhooks libraries do on the receiving side) */
function signingKeyBytes(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
}

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` */
export function sign(secret: string, messageId: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', signingKeyBytes(secret)).update(`${messageId}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** the Standard Webhooks headers of one attempt: `webhook-id` (the message id, stable across
 * retries), `webhook-timestamp` (now, in seconds) and `webhook-signature` */
export function signatureHeaders(secret: string, messageId: string, body: string, timestampSeconds = Math.floor(Date.now() / 1000)): Record<string, string> {
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': sign(secret, messageId, timestampSeconds, body),
  };
}
