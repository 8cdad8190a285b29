// An S3-compatible server on loopback for tests: s3rver (npm) on a free port over a temp
// directory, path-style, one bucket made at start. s3rver checks only that a SigV4 request names
// a known access key id, not its signature, so a small front here verifies the signature of every
// header-signed request (canonical request, scope, HMAC chain) and answers SignatureDoesNotMatch
// like S3 does: a wrong secret fails here as it would against S3. s3rver also lacks
// AbortMultipartUpload (DELETE ?uploadId answers 405); the front does it on s3rver's upload
// directory, and `pendingUploads()` tells whether any multipart upload was left open (decision 0725).
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';

export interface S3TestServer {
  /** http://127.0.0.1:<port> */
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** the directory s3rver keeps objects in */
  directory: string;
  /** multipart uploads started and neither completed nor aborted */
  pendingUploads(): string[];
  stop(): Promise<void>;
}

/** s3rver's built-in account */
const ACCESS_KEY_ID = 'S3RVER';
const SECRET = 'S3RVER';

const rfc3986 = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const hmac = (key: Buffer | string, s: string) => createHmac('sha256', key).update(s).digest();

/** null when the request is not header-signed with SigV4 or its signature checks; else why not */
function sigV4Problem(req: IncomingMessage, secrets: ReadonlyMap<string, string>): string | null {
  const auth = req.headers.authorization;
  if (!auth?.startsWith('AWS4-HMAC-SHA256 ')) return null;
  const fields = Object.fromEntries(auth.slice(17).split(/,\s*/).map((p) => {
    const i = p.indexOf('=');
    return [p.slice(0, i).trim(), p.slice(i + 1).trim()];
  }));
  const [accessKeyId, ...scope] = String(fields.Credential ?? '').split('/');
  const secret = secrets.get(accessKeyId ?? '');
  if (secret === undefined) return null; // s3rver answers InvalidAccessKeyId
  const [path, query = ''] = (req.url ?? '/').split(/\?(.*)/s, 2) as [string, string?];
  const canonicalQuery = query.split('&').filter(Boolean).map((pair) => {
    const i = pair.indexOf('=');
    const [k, v] = i < 0 ? [pair, ''] : [pair.slice(0, i), pair.slice(i + 1)];
    return [rfc3986(decodeURIComponent(k)), rfc3986(decodeURIComponent(v))] as const;
  }).sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : 1) : a[0] < b[0] ? -1 : 1)).map(([k, v]) => `${k}=${v}`).join('&');
  const signed = String(fields.SignedHeaders ?? '').split(';');
  const headers = signed.map((h) => `${h}:${String(req.headers[h] ?? '').trim().replace(/\s+/g, ' ')}\n`).join('');
  const payload = String(req.headers['x-amz-content-sha256'] ?? 'UNSIGNED-PAYLOAD');
  const canonical = [req.method, path, canonicalQuery, headers, signed.join(';'), payload].join('\n');
  const amzDate = String(req.headers['x-amz-date'] ?? '');
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope.join('/'), sha256(canonical)].join('\n');
  let key: Buffer = hmac(`AWS4${secret}`, scope[0] ?? '');
  for (const part of scope.slice(1)) key = hmac(key, part);
  const expected = hmac(key, toSign);
  const given = Buffer.from(String(fields.Signature ?? ''), 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected) ? null : 'The request signature we calculated does not match the signature you provided. Check your key and signing method.';
}

export async function startS3Server(opts: { bucket?: string } = {}): Promise<S3TestServer> {
  const bucket = opts.bucket ?? `berth-test-${randomBytes(3).toString('hex')}`;
  const directory = mkdtempSync(join(tmpdir(), 'berth-s3-'));
  const s3 = new S3rver({ directory, silent: true, vhostBuckets: false, configureBuckets: [{ name: bucket, configs: [] }] });
  await s3.configureBuckets();
  const handle = s3.callback();
  const uploads = (s3 as unknown as { store: { getResourcePath(b: string, k: undefined, r: string): string } }).store.getResourcePath(bucket, undefined, 'uploads');
  const secrets = new Map([[ACCESS_KEY_ID, SECRET]]);
  const xmlError = (res: ServerResponse, status: number, code: string, message: string) => {
    res.writeHead(status, { 'content-type': 'application/xml' });
    res.end(`<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`);
  };
  const server: Server = createServer((req, res) => {
    const problem = sigV4Problem(req, secrets);
    if (problem) {
      req.resume();
      return xmlError(res, 403, 'SignatureDoesNotMatch', problem);
    }
    const uploadId = req.method === 'DELETE' ? new URL(req.url ?? '/', 'http://x').searchParams.get('uploadId') : null;
    if (uploadId === null) return handle(req, res);
    req.resume();
    const dir = join(uploads, uploadId.replace(/[^A-Za-z0-9_-]/g, ''));
    if (!existsSync(dir)) return xmlError(res, 404, 'NoSuchUpload', 'The specified upload does not exist.');
    rmSync(dir, { recursive: true, force: true });
    res.writeHead(204).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`, bucket, region: 'us-east-1', accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET, directory,
    pendingUploads: () => (existsSync(uploads) ? readdirSync(uploads) : []),
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
