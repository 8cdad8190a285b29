// How each git provider proves a webhook delivery is its own, checked over the raw body bytes
// before anything in them is read; every comparison is constant-time. Pure (node:crypto only).
//   GitHub     X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body>
//   GitLab     X-Gitlab-Token: the secret itself
//   Bitbucket  X-Hub-Signature: sha256=<hex HMAC-SHA256> (Bitbucket Cloud signs only when the
//              webhook has a secret; berth requires one)
//   Gitea / Forgejo  X-Gitea-Signature / X-Forgejo-Signature: <hex HMAC-SHA256> (Forgejo sends
//              both; X-Forgejo-Signature is the one checked when present)
import { createHmac, timingSafeEqual } from 'node:crypto';

export const GIT_WEBHOOK_PROVIDERS = ['github', 'gitlab', 'bitbucket', 'gitea', 'forgejo'] as const;
export type GitWebhookProvider = (typeof GIT_WEBHOOK_PROVIDERS)[number];

/** request headers by lower-case name, as Node gives them */
export type Headers = Record<string, string | string[] | undefined>;

export function header(headers: Headers, name: string): string | null {
  const v = headers[name.toLowerCase()];
  const one = Array.isArray(v) ? v[0] : v;
  return typeof one === 'string' && one !== '' ? one : null;
}

export type Verdict = { ok: true } | { ok: false; reason: string };

function hmacHex(secret: string, body: Buffer): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

function sameText(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** `sha256=<hex>` or bare `<hex>` (prefix: 'sha256=' or '') checked against the body's HMAC */
function checkHmac(given: string | null, name: string, prefix: string, secret: string, body: Buffer): Verdict {
  if (!given) return { ok: false, reason: `the ${name} header is missing (set the webhook's secret to the one berth gave)` };
  const value = given.trim();
  if (prefix && !value.toLowerCase().startsWith(prefix)) return { ok: false, reason: `${name} must be ${prefix}<hex HMAC-SHA256 of the body>` };
  const hex = value.slice(prefix.length).toLowerCase();
  return sameText(hex, hmacHex(secret, body)) ? { ok: true } : { ok: false, reason: `${name} does not match the body signed with this organization's git webhook secret` };
}

/** whether the delivery was signed with `secret` in the provider's way */
export function verifySignature(provider: GitWebhookProvider, headers: Headers, body: Buffer, secret: string): Verdict {
  switch (provider) {
    case 'github':
      return checkHmac(header(headers, 'x-hub-signature-256'), 'X-Hub-Signature-256', 'sha256=', secret, body);
    case 'bitbucket':
      return checkHmac(header(headers, 'x-hub-signature'), 'X-Hub-Signature', 'sha256=', secret, body);
    case 'gitea':
    case 'forgejo': {
      const forgejo = header(headers, 'x-forgejo-signature');
      return forgejo
        ? checkHmac(forgejo, 'X-Forgejo-Signature', '', secret, body)
        : checkHmac(header(headers, 'x-gitea-signature'), provider === 'forgejo' ? 'X-Forgejo-Signature' : 'X-Gitea-Signature', '', secret, body);
    }
    case 'gitlab': {
      const token = header(headers, 'x-gitlab-token');
      if (!token) return { ok: false, reason: 'the X-Gitlab-Token header is missing (set the webhook\'s secret token to the one berth gave)' };
      return sameText(token, secret) ? { ok: true } : { ok: false, reason: 'X-Gitlab-Token is not this organization\'s git webhook secret' };
    }
  }
}

/** the signature headers a provider would send for `body` (tests, and `curl` examples in the docs) */
export function signatureHeaders(provider: GitWebhookProvider, body: string | Buffer, secret: string): Record<string, string> {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
  switch (provider) {
    case 'github': return { 'x-hub-signature-256': `sha256=${hmacHex(secret, bytes)}` };
    case 'bitbucket': return { 'x-hub-signature': `sha256=${hmacHex(secret, bytes)}` };
    case 'gitea': return { 'x-gitea-signature': hmacHex(secret, bytes) };
    case 'forgejo': return { 'x-forgejo-signature': hmacHex(secret, bytes), 'x-gitea-signature': hmacHex(secret, bytes) };
    case 'gitlab': return { 'x-gitlab-token': secret };
  }
}
