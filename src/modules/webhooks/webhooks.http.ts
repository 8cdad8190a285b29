// The outgoing HTTP POST of a webhook delivery, with the SSRF guard: the host is resolved with
// dns.lookup, every resolved address is checked with isPrivateAddress, and the connection goes
// to the checked address (the `lookup` hook), so a DNS answer cannot change between check and
// connect. Redirects are not followed; the response body is kept up to 1 KB.
// node:http and node:https are taken with process.getBuiltinModule when a delivery is sent, not
// imported: an ES import of node:http builds its whole namespace, whose WebSocket getters load
// Node's bundled undici (13.6 MiB resident in every process, measured), and node:https brings TLS
// (6 MiB) that a berth sending no webhooks never needs (decision 0705).
import { lookup as dnsLookup } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { isPrivateAddress } from '../../lib/cidr.ts';

export interface PostResult {
  status: number | null;
  body: string | null;
  retryAfter: string | undefined;
  error: string | null;
  /** the target was refused by the guard: retrying cannot help */
  refused: boolean;
  durationMs: number;
}

class RefusedTarget extends Error {}

const RESPONSE_EXCERPT_BYTES = 1024;

function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses as Array<{ address: string; family: number }>;
      const bad = list.find((a) => !allowPrivate && isPrivateAddress(a.address));
      if (bad || list.length === 0) {
        return callback(new RefusedTarget(`target ${hostname} resolves to a non-public address (${bad?.address ?? 'none'}); WEBHOOK_ALLOW_PRIVATE_TARGETS=true allows it`), '', 0);
      }
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: typeof list) => void)(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };
}

export async function postJson(target: string, body: string, headers: Record<string, string>, opts: { allowPrivate: boolean; timeoutMs: number }): Promise<PostResult> {
  return sendJson('POST', target, body, { ...headers, 'user-agent': 'berth-webhooks/1' }, opts);
}

/**
 * Any method with a JSON body through the same guard (git providers' APIs, src/modules/provider-status):
 * the response body is kept up to `maxBodyBytes` (1 KB by default); a `user-agent` in `headers` wins.
 */
export async function sendJson(method: string, target: string, body: string, headers: Record<string, string>,
  opts: { allowPrivate: boolean; timeoutMs: number; maxBodyBytes?: number }): Promise<PostResult> {
  const limit = opts.maxBodyBytes ?? RESPONSE_EXCERPT_BYTES;
  const startedAt = Date.now();
  const done = (r: Omit<PostResult, 'durationMs'>): PostResult => ({ ...r, durationMs: Date.now() - startedAt });
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return done({ status: null, body: null, retryAfter: undefined, error: 'invalid target URL', refused: true });
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0 && !opts.allowPrivate && isPrivateAddress(host)) {
    return done({ status: null, body: null, retryAfter: undefined, error: `target address ${host} is not public; WEBHOOK_ALLOW_PRIVATE_TARGETS=true allows it`, refused: true });
  }
  const send = url.protocol === 'https:' ? process.getBuiltinModule('node:https').request : process.getBuiltinModule('node:http').request;
  return new Promise<PostResult>((resolve) => {
    let settled = false;
    const finish = (r: Omit<PostResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      resolve(done(r));
    };
    const req = send(url, {
      method,
      headers: { 'user-agent': 'berth-webhooks/1', ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
      lookup: guardedLookup(opts.allowPrivate),
      timeout: opts.timeoutMs,
    }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        if (size < limit) chunks.push(c);
        size += c.length;
      });
      res.on('end', () => {
        const excerpt = Buffer.concat(chunks).subarray(0, limit).toString('utf8');
        const ra = res.headers['retry-after'];
        finish({ status: res.statusCode ?? null, body: excerpt, retryAfter: Array.isArray(ra) ? ra[0] : ra, error: null, refused: false });
      });
      res.on('error', (err) => finish({ status: res.statusCode ?? null, body: null, retryAfter: undefined, error: err.message, refused: false }));
    });
    req.on('timeout', () => req.destroy(new Error(`no response within ${opts.timeoutMs} ms`)));
    req.on('error', (err) => finish({ status: null, body: null, retryAfter: undefined, error: err.message, refused: err instanceof RefusedTarget }));
    req.end(body);
  });
}
