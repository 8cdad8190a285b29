// Backup stores: a local directory and an S3-compatible server on loopback (s3rver behind a
// SigV4-checking front, test/support/s3-server.ts). Round trips of streamed multi-MB bodies, no
// object left by a failed or aborted put, check() naming what is wrong, the private-address guard.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { startS3Server, type S3TestServer } from '../../../test/support/s3-server.ts';
import { isPrivateAddress } from '../../lib/cidr.ts';
import { localStore, s3Store, StoreObjectMissing, type BackupStore, type S3Target } from './storage.ts';

/** `total` random bytes in 1 MiB chunks, made as read; `failAt`: errors once that much was read; `onChunk` sees the count */
function body(total: number, seed: Buffer, opts: { failAt?: number; onChunk?: (sent: number) => void } = {}): Readable {
  let sent = 0;
  return new Readable({
    read() {
      if (opts.failAt !== undefined && sent >= opts.failAt) return this.destroy(new Error('the dump broke'));
      if (sent >= total) return this.push(null);
      const n = Math.min(1024 * 1024, total - sent);
      const chunk = createHash('sha512').update(seed).update(String(sent)).digest();
      sent += n;
      opts.onChunk?.(sent);
      this.push(Buffer.alloc(n, chunk));
    },
  });
}

async function sha(stream: Readable): Promise<{ sha: string; size: number }> {
  const h = createHash('sha256');
  let size = 0;
  for await (const c of stream) {
    h.update(c as Buffer);
    size += (c as Buffer).length;
  }
  return { sha: h.digest('hex'), size };
}

/** the round trip, the failed put and the aborted put, for either kind; `leftovers`: open multipart uploads */
function storeContract(name: string, make: () => BackupStore, total: number, leftovers: () => string[] = () => []) {
  describe(name, () => {
    const seed = randomBytes(8);
    test(`put / get / remove round trip of ${total / 1048576} MiB streamed`, async () => {
      const store = make();
      const key = 'org-1/db-1/backup-1.dump.gz.enc';
      const { size } = await store.put(key, body(total, seed));
      assert.equal(size, total);
      const expected = await sha(body(total, seed));
      assert.deepEqual(await sha(await store.get(key)), expected);
      await store.remove(key);
      await assert.rejects(store.get(key), StoreObjectMissing);
      await store.remove(key); // idempotent
    });
    test('a source that errors mid-way leaves no object', async () => {
      const store = make();
      const key = 'org-1/db-1/broken.dump.gz.enc';
      await assert.rejects(store.put(key, body(total, seed, { failAt: Math.floor(total * 0.9) })), /the dump broke/);
      await assert.rejects(store.get(key), StoreObjectMissing);
      assert.deepEqual(leftovers(), []);
    });
    test('an aborted put leaves no object', async () => {
      const store = make();
      const key = 'org-1/db-1/aborted.dump.gz.enc';
      const ac = new AbortController();
      await assert.rejects(store.put(key, body(total, seed, { onChunk: (n) => { if (n >= total * 0.7) ac.abort(); } }), ac.signal), { name: 'AbortError' });
      await assert.rejects(store.get(key), StoreObjectMissing);
      assert.deepEqual(leftovers(), []);
      const done = new AbortController();
      done.abort();
      await assert.rejects(store.put(key, body(10, seed), done.signal), { name: 'AbortError' });
    });
    test('keys that could leave the store are refused', async () => {
      const store = make();
      for (const key of ['../x', '/abs/x', 'a/../b', 'a//b', '.hidden', 'a/./b', '', 'a/b c']) {
        await assert.rejects(store.put(key, body(1, seed)), /invalid backup object key/, key);
        await assert.rejects(store.get(key), /invalid backup object key/, key);
      }
    });
    test('check() passes', async () => {
      await make().check();
    });
  });
}

describe('local backup store', () => {
  const dir = mkdtempSync(join(tmpdir(), 'berth-backups-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  storeContract('local directory', () => localStore(join(dir, 'store')), 12 * 1024 * 1024);

  test('files are 0600, directories 0700, and nothing but the objects is left', async () => {
    const store = localStore(join(dir, 'modes'));
    await store.put('o/d/b.enc', body(1000, randomBytes(4)));
    assert.equal(statSync(join(dir, 'modes', 'o', 'd', 'b.enc')).mode & 0o777, 0o600);
    assert.equal(statSync(join(dir, 'modes', 'o', 'd')).mode & 0o777, 0o700);
    assert.equal(statSync(join(dir, 'modes', 'o')).mode & 0o777, 0o700);
    await assert.rejects(store.put('o/d/x.enc', body(5 << 20, randomBytes(4), { failAt: 3 << 20 })), /the dump broke/);
    assert.deepEqual(readdirSync(join(dir, 'modes', 'o', 'd')), ['b.enc']);
  });

  test('check() names what is wrong with the directory', async () => {
    writeFileSync(join(dir, 'a-file'), 'x');
    await assert.rejects(localStore(join(dir, 'a-file', 'sub')).check(), /cannot create the backup directory .*a-file\/sub: a path component is not a directory/);
  });
});

describe('S3 backup store (s3rver on loopback)', () => {
  let s3: S3TestServer;
  before(async () => { s3 = await startS3Server(); });
  after(async () => { await s3?.stop(); });
  const target = (over: Partial<S3Target> = {}): S3Target => ({
    endpoint: s3.endpoint, region: s3.region, bucket: s3.bucket, prefix: 'team/backups/', accessKeyId: s3.accessKeyId,
    secretAccessKey: s3.secretAccessKey, forcePathStyle: true, allowPrivateEndpoint: true, ...over,
  });

  // bigger than one 8 MiB multipart part
  storeContract('S3 bucket', () => s3Store(target()), 13 * 1024 * 1024, () => s3.pendingUploads());

  test('objects go under the prefix', async () => {
    await s3Store(target()).put('o/d/p.enc', body(100, randomBytes(4)));
    assert.equal((await sha(await s3Store(target({ prefix: '' })).get('team/backups/o/d/p.enc'))).size, 100);
  });

  test('check() names a wrong secret, an unknown access key, a missing bucket, a refused connection, an unknown host', async () => {
    await assert.rejects(s3Store(target({ secretAccessKey: 'not-the-secret' })).check(), /S3 check .* failed: .*SignatureDoesNotMatch.*secret access key is wrong/);
    await assert.rejects(s3Store(target({ accessKeyId: 'NOBODY' })).check(), /does not know the access key id NOBODY \(InvalidAccessKeyId\)/);
    await assert.rejects(s3Store(target({ bucket: 'no-such-bucket' })).check(), /the bucket no-such-bucket does not exist at http:\/\/127\.0\.0\.1:\d+ \(NoSuchBucket\)/);
    const closed = s3.endpoint.replace(/:\d+$/, ':1');
    await assert.rejects(s3Store(target({ endpoint: closed })).check(), /refused the connection \(ECONNREFUSED\)/);
    await assert.rejects(s3Store(target({ endpoint: 'http://no-such-host.invalid' })).check(), /cannot resolve the host .*\(DNS: (ENOTFOUND|EAI_AGAIN)\)/);
  });

  test('without WEBHOOK_ALLOW_PRIVATE_TARGETS a loopback or private endpoint is refused, by name and by resolved address', async () => {
    for (const endpoint of [s3.endpoint, s3.endpoint.replace('127.0.0.1', 'localhost'), 'http://10.1.2.3:9000', 'http://[::1]:9000', 'http://169.254.169.254']) {
      const store = s3Store(target({ endpoint, allowPrivateEndpoint: false }));
      await assert.rejects(store.check(), /loopback, private, link-local or metadata address; WEBHOOK_ALLOW_PRIVATE_TARGETS=true allows it/, endpoint);
      await assert.rejects(store.put('o/d/x', body(1, randomBytes(4))), /WEBHOOK_ALLOW_PRIVATE_TARGETS/, endpoint);
    }
    // a DNS name that resolves to a private address is refused on the address dialled
    const host = hostname();
    const resolved = await lookup(host).catch(() => null);
    if (resolved && isPrivateAddress(resolved.address) && !host.endsWith('localhost')) {
      const endpoint = `http://${host}:${new URL(s3.endpoint).port}`;
      await assert.rejects(s3Store(target({ endpoint, allowPrivateEndpoint: false })).check(), /resolves to a non-public address.*WEBHOOK_ALLOW_PRIVATE_TARGETS=true allows it/);
    }
    await assert.rejects(s3Store(target({ endpoint: 'ftp://example.com' })).check(), /not an absolute http or https URL/);
  });
});
