// What both kinds of backup store share (decision 0725): the BackupStore interface, the S3
// target's settings, the missing-object error, the object-key rule, a byte counter and the literal
// part of the S3 endpoint's private-address guard (a service can check an endpoint before saving it). Split from
// storage.ts so the lazily loaded S3 store (storage-s3.ts) needs no import back into it.
import { Transform } from 'node:stream';
import type { Readable } from 'node:stream';
import { isIP } from 'node:net';
import { isPrivateAddress } from '../../lib/cidr.ts';

export interface BackupStore {
  readonly kind: 'LOCAL' | 'S3';
  /** writes the object from the stream; returns bytes written. A failed/aborted write leaves no object under `key` (local: write to a temp name then rename; S3: multipart upload aborted). */
  put(key: string, body: Readable, signal?: AbortSignal): Promise<{ size: number }>;
  /** the object's bytes; throws StoreObjectMissing when there is none */
  get(key: string): Promise<Readable>;
  /** idempotent */
  remove(key: string): Promise<void>;
  /** proves the target works: writes, reads back and removes a small probe object; throws a clear Error saying what failed (DNS, auth, bucket missing…) */
  check(): Promise<void>;
}

export interface S3Target {
  /** null: AWS S3 itself (the region's endpoint) */
  endpoint: string | null;
  region: string;
  bucket: string;
  prefix: string;
  accessKeyId: string;
  secretAccessKey: string;
  forcePathStyle: boolean;
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS: may the endpoint be (or resolve to) a loopback, private, link-local or metadata address */
  allowPrivateEndpoint: boolean;
}

export class StoreObjectMissing extends Error {
  constructor(key: string) {
    super(`backup object ${key} is not in the store`);
    this.name = 'StoreObjectMissing';
  }
}

const KEY_SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

/** keys are relative paths of plain segments: no `..`, no absolute path, no segment starting with a dot */
export function checkObjectKey(key: string): void {
  if (key.length === 0 || key.length > 512 || !key.split('/').every((s) => KEY_SEGMENT.test(s))) {
    throw new Error(`invalid backup object key ${JSON.stringify(key)}: relative path segments of letters, digits, '.', '_', '-' only, none starting with '.'`);
  }
}

/** a pass-through counting bytes */
export function byteCounter(): { stream: Transform; bytes(): number } {
  let n = 0;
  const stream = new Transform({ transform(c: Buffer, _e, cb) { n += c.length; cb(null, c); } });
  return { stream, bytes: () => n };
}

export const ALLOW_HINT = 'WEBHOOK_ALLOW_PRIVATE_TARGETS=true allows it (on-premise storage, tests)';

/** null when the endpoint may be used, else why not (the literal part of the guard) */
export function s3EndpointProblem(endpoint: string, allowPrivate: boolean): string | null {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return `the S3 endpoint ${JSON.stringify(endpoint)} is not an absolute http or https URL`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `the S3 endpoint ${endpoint} is not an absolute http or https URL`;
  if (url.username || url.password) return 'the S3 endpoint must not carry credentials';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate && (host === 'localhost' || host.endsWith('.localhost') || (isIP(host) !== 0 && isPrivateAddress(host)))) {
    return `the S3 endpoint ${endpoint} is a loopback, private, link-local or metadata address; ${ALLOW_HINT}`;
  }
  return null;
}
