// The S3-compatible BackupStore (decision 0725) over the AWS SDK v3: streamed multipart uploads
// with @aws-sdk/lib-storage (aborted on any failure, so no object is left half-written), errors
// turned into one sentence naming the cause, and the same private-address guard as outgoing
// webhooks: unless WEBHOOK_ALLOW_PRIVATE_TARGETS is set, the endpoint may not be, nor resolve to,
// a loopback, private, link-local or metadata address (checked on the address actually dialled).
import { DeleteObjectCommand, GetObjectCommand, NoSuchKey, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { randomBytes } from 'node:crypto';
import { lookup as dnsLookup } from 'node:dns';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { Readable } from 'node:stream';
import { isPrivateAddress } from '../../lib/cidr.ts';
import { ALLOW_HINT, byteCounter, s3EndpointProblem, StoreObjectMissing, type BackupStore, type S3Target } from './storage-base.ts';

/** multipart part size: 8 MiB × S3's 10,000 parts = archives up to 78 GiB; two parts in flight */
const PART_SIZE = 8 * 1024 * 1024;
const QUEUE_SIZE = 2;

class PrivateEndpointRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PrivateEndpointRefused';
  }
}

function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses as Array<{ address: string; family: number }>;
      const bad = list.find((a) => !allowPrivate && isPrivateAddress(a.address));
      if (bad || list.length === 0) {
        return callback(new PrivateEndpointRefused(`the S3 endpoint ${hostname} resolves to a non-public address (${bad?.address ?? 'none'}); ${ALLOW_HINT}`), '', 0);
      }
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: typeof list) => void)(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };
}

/** one sentence naming what failed */
function describe(err: unknown, t: S3Target, action: string): Error {
  const where = t.endpoint ?? `AWS S3 (${t.region})`;
  const e = err as Error & { code?: string; hostname?: string; $metadata?: { httpStatusCode?: number } };
  let why: string;
  if (e instanceof PrivateEndpointRefused || e?.name === 'PrivateEndpointRefused') why = e.message;
  else if (e?.name === 'SignatureDoesNotMatch') why = `${where} refused the signature (SignatureDoesNotMatch): the secret access key is wrong`;
  else if (e?.name === 'InvalidAccessKeyId') why = `${where} does not know the access key id ${t.accessKeyId} (InvalidAccessKeyId)`;
  else if (e?.name === 'NoSuchBucket') why = `the bucket ${t.bucket} does not exist at ${where} (NoSuchBucket)`;
  else if (e?.name === 'AccessDenied' || e?.$metadata?.httpStatusCode === 403) why = `${where} denied access to the bucket ${t.bucket} (${e.name}): the credentials lack permission`;
  else if (e?.name === 'PermanentRedirect' || e?.name === 'AuthorizationHeaderMalformed') why = `the bucket ${t.bucket} is not in region ${t.region} (${e.name})`;
  else if (e?.code === 'ENOTFOUND' || e?.code === 'EAI_AGAIN') why = `cannot resolve the host of ${where} (DNS: ${e.code})`;
  else if (e?.code === 'ECONNREFUSED') why = `${where} refused the connection (ECONNREFUSED)`;
  else if (e?.code === 'ETIMEDOUT' || e?.name === 'TimeoutError') why = `${where} did not answer in time`;
  else if (e instanceof S3ServiceException) why = `${where} answered ${e.$metadata.httpStatusCode ?? ''} ${e.name}: ${e.message}`;
  else why = `${e?.name ?? 'Error'}: ${e?.message ?? String(err)}`;
  return new Error(`S3 ${action} failed: ${why}`, { cause: err });
}

export function createS3Store(t: S3Target): BackupStore {
  const refused = t.endpoint === null ? null : s3EndpointProblem(t.endpoint, t.allowPrivateEndpoint);
  const lookup = guardedLookup(t.allowPrivateEndpoint);
  const client = new S3Client({
    region: t.region,
    ...(t.endpoint ? { endpoint: t.endpoint } : {}),
    forcePathStyle: t.forcePathStyle,
    credentials: { accessKeyId: t.accessKeyId, secretAccessKey: t.secretAccessKey },
    // checksums only where S3 requires them: S3-compatible servers (MinIO, Ceph, R2, B2 …) do not
    // all accept the SDK's default CRC32 trailers on streamed bodies
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 3,
    requestHandler: {
      httpAgent: new HttpAgent({ keepAlive: true, lookup }),
      httpsAgent: new HttpsAgent({ keepAlive: true, lookup }),
      connectionTimeout: 10_000,
      requestTimeout: 120_000,
    },
  });
  const prefix = t.prefix.replace(/^\/+|\/+$/g, '');
  const objectKey = (key: string) => (prefix ? `${prefix}/${key}` : key);
  const guard = (action: string) => {
    if (refused) throw new Error(`S3 ${action} failed: ${refused}`);
  };

  async function put(key: string, body: Readable, signal?: AbortSignal): Promise<{ size: number }> {
    guard('upload');
    signal?.throwIfAborted();
    const counter = byteCounter();
    const source = body.pipe(counter.stream);
    body.once('error', (err) => source.destroy(err));
    // aborting destroys the source: the upload's part reader fails, lib-storage aborts the
    // multipart upload, and only then does done() reject
    const onAbort = () => source.destroy(Object.assign(new Error('backup upload aborted'), { name: 'AbortError' }));
    signal?.addEventListener('abort', onAbort, { once: true });
    const upload = new Upload({ client, params: { Bucket: t.bucket, Key: objectKey(key), Body: source }, partSize: PART_SIZE, queueSize: QUEUE_SIZE, leavePartsOnError: false });
    try {
      await upload.done();
    } catch (err) {
      body.destroy();
      if ((err as Error).name === 'AbortError' || signal?.aborted) throw signal?.reason ?? err;
      throw describe(err, t, `upload of ${key}`);
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
    if (signal?.aborted) {
      // a single-part upload already sent as the abort came: take it back
      await client.send(new DeleteObjectCommand({ Bucket: t.bucket, Key: objectKey(key) })).catch(() => undefined);
      throw signal.reason;
    }
    return { size: counter.bytes() };
  }

  async function get(key: string): Promise<Readable> {
    guard('download');
    try {
      const res = await client.send(new GetObjectCommand({ Bucket: t.bucket, Key: objectKey(key) }));
      return res.Body as Readable;
    } catch (err) {
      if (err instanceof NoSuchKey || (err as Error).name === 'NoSuchKey') throw new StoreObjectMissing(key);
      throw describe(err, t, `download of ${key}`);
    }
  }

  async function remove(key: string): Promise<void> {
    guard('delete');
    try {
      await client.send(new DeleteObjectCommand({ Bucket: t.bucket, Key: objectKey(key) }));
    } catch (err) {
      if ((err as Error).name === 'NoSuchKey') return;
      throw describe(err, t, `delete of ${key}`);
    }
  }

  async function check(): Promise<void> {
    guard('check');
    const key = objectKey(`.berth-check-${randomBytes(6).toString('hex')}`);
    const data = randomBytes(32);
    try {
      await client.send(new PutObjectCommand({ Bucket: t.bucket, Key: key, Body: data }));
    } catch (err) {
      throw describe(err, t, `check (writing a probe object to ${t.bucket})`);
    }
    try {
      const res = await client.send(new GetObjectCommand({ Bucket: t.bucket, Key: key }));
      const back = Buffer.from(await res.Body!.transformToByteArray());
      if (!back.equals(data)) throw new Error(`S3 check failed: ${t.bucket} did not give back the probe object as written`);
    } catch (err) {
      if ((err as Error).message.startsWith('S3 check failed')) throw err;
      throw describe(err, t, `check (reading the probe object back from ${t.bucket})`);
    } finally {
      await client.send(new DeleteObjectCommand({ Bucket: t.bucket, Key: key })).catch(() => undefined);
    }
  }

  return { kind: 'S3', put, get, remove, check };
}
