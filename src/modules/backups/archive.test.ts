// The archive format: round trips (streamed; memory flat, measured in a child process), every tampering case fails loudly and
// emits no unauthenticated plaintext, an empty input round-trips, and the digest pass-through.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, test } from 'node:test';
import { digest, newArchiveKey, openArchive, sealArchive } from './archive.ts';

const RECORD = 64 * 1024 + 16;
const HEADER = 48;

/** `total` bytes in 256 KiB chunks alternating random and compressible text, made as read */
function source(total: number, seed = 1): Readable {
  let made = 0;
  let i = seed;
  return new Readable({
    read() {
      if (made >= total) return this.push(null);
      const n = Math.min(256 * 1024, total - made);
      made += n;
      i++;
      this.push(i % 2 === 0 ? randomBytes(n) : Buffer.alloc(n, `row ${i}\tsome text that compresses;\n`));
    },
  });
}

function sink(): { stream: Writable; sha(): string; size(): number } {
  const h = createHash('sha256');
  let size = 0;
  return {
    stream: new Writable({ write(c: Buffer, _e, cb) { h.update(c); size += c.length; cb(); } }),
    sha: () => h.digest('hex'),
    size: () => size,
  };
}

async function sealBuffer(key: Buffer, plain: Buffer): Promise<Buffer> {
  const out: Buffer[] = [];
  await pipeline(Readable.from([plain]), sealArchive(key), new Writable({ write(c: Buffer, _e, cb) { out.push(c); cb(); } }));
  return Buffer.concat(out);
}

/** opens `sealed` fed in small chunks; returns what was emitted and the error */
async function openBuffer(key: Buffer, sealed: Buffer): Promise<{ plain: Buffer; error: Error | null }> {
  const out: Buffer[] = [];
  const chunks: Buffer[] = [];
  for (let i = 0; i < sealed.length; i += 10_000) chunks.push(sealed.subarray(i, i + 10_000));
  try {
    await pipeline(Readable.from(chunks), openArchive(key), new Writable({ write(c: Buffer, _e, cb) { out.push(c); cb(); } }));
    return { plain: Buffer.concat(out), error: null };
  } catch (err) {
    return { plain: Buffer.concat(out), error: err as Error };
  }
}

describe('backup archive', () => {
  test('a few MB of random and compressible data round-trip, streamed', async () => {
    const key = newArchiveKey();
    const total = 24 * 1024 * 1024;
    const inDigest = digest();
    const sealedDigest = digest();
    const out = sink();
    await pipeline(source(total), inDigest.stream, sealArchive(key), sealedDigest.stream, openArchive(key), out.stream);
    assert.equal(out.size(), total);
    assert.equal(out.sha(), inDigest.result().sha256);
    assert.equal(inDigest.result().size, total);
    // half the input is random: the archive is at least that, and well below the input
    assert.ok(sealedDigest.result().size > total / 2 && sealedDigest.result().size < total * 0.75, String(sealedDigest.result().size));
  });

  test('memory stays flat: 192 MiB through seal and open grow RSS by well under half of it (own process)', () => {
    // a child process: other test files share this one's heap and would blur the measure
    const script = `
      import { Readable, Writable } from 'node:stream';
      import { pipeline } from 'node:stream/promises';
      import { randomBytes } from 'node:crypto';
      import { newArchiveKey, openArchive, sealArchive } from ${JSON.stringify(new URL('./archive.ts', import.meta.url).href)};
      const total = 192 * 1024 * 1024, chunk = randomBytes(1024 * 1024), text = Buffer.alloc(1024 * 1024, 'row 1, some text; ');
      let made = 0, got = 0;
      const key = newArchiveKey();
      const src = new Readable({ read() { if (made >= total) return this.push(null); made += chunk.length; this.push((made >> 20) % 2 ? chunk : text); } });
      const before = process.memoryUsage().rss; let peak = before;
      const timer = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 10);
      await pipeline(src, sealArchive(key), openArchive(key), new Writable({ write(c, _e, cb) { got += c.length; cb(); } }));
      clearInterval(timer);
      console.log(JSON.stringify({ got, growth: peak - before }));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 0, r.stderr);
    const { got, growth } = JSON.parse(r.stdout) as { got: number; growth: number };
    assert.equal(got, 192 * 1024 * 1024);
    // measured: 60 MiB for 80 MiB streamed, 82 MiB for 320 MiB (buffers V8 frees lazily, not the data)
    assert.ok(growth < 96 * 1024 * 1024, `RSS grew by ${(growth / 1048576).toFixed(1)} MiB for 192 MiB streamed`);
  });

  test('an empty input round-trips (a header and one empty final record around an empty gzip)', async () => {
    const key = newArchiveKey();
    const sealed = await sealBuffer(key, Buffer.alloc(0));
    assert.ok(sealed.length > HEADER + 16 && sealed.length < HEADER + 16 + 64);
    const { plain, error } = await openBuffer(key, sealed);
    assert.equal(error, null);
    assert.equal(plain.length, 0);
  });

  test('sizes at record boundaries round-trip', async () => {
    const key = newArchiveKey();
    for (const n of [1, 65535, 65536, 65537, 3 * 65536]) {
      const plain = randomBytes(n); // incompressible: the archive has ceil(n / 64 KiB) records or so
      const { plain: back, error } = await openBuffer(key, await sealBuffer(key, plain));
      assert.equal(error, null, `${n}`);
      assert.ok(back.equals(plain), `${n}`);
    }
  });

  describe('tampering fails and emits nothing unauthenticated', () => {
    const key = newArchiveKey();
    const plain = randomBytes(5 * 65536 + 1000); // several records
    let sealed: Buffer;

    async function fails(bad: Buffer, k: Buffer, message: RegExp): Promise<void> {
      sealed ??= await sealBuffer(key, plain);
      const { plain: emitted, error } = await openBuffer(k, bad);
      assert.ok(error, 'expected an error');
      assert.match(error.message, message);
      // whatever came out before the error is a prefix of the real plaintext
      assert.ok(plain.subarray(0, emitted.length).equals(emitted), 'emitted bytes that are not the plaintext');
    }

    test('a wrong key', async () => {
      sealed ??= await sealBuffer(key, plain);
      await fails(sealed, newArchiveKey(), /wrong archive key/);
    });
    test('a flipped byte in a record, in the header, in the last tag', async () => {
      sealed ??= await sealBuffer(key, plain);
      for (const at of [HEADER + 5, HEADER + 2 * RECORD + 100, sealed.length - 1]) {
        const bad = Buffer.from(sealed);
        bad[at]! ^= 0x01;
        await fails(bad, key, /record \d+ failed authentication/);
      }
      const bad = Buffer.from(sealed);
      bad[12]! ^= 0x80; // the salt
      await fails(bad, key, /wrong archive key \(or the archive header is damaged\)/);
      const magic = Buffer.from(sealed);
      magic[0] = 0x42;
      await fails(magic, key, /not a berth backup archive/);
    });
    test('truncated: at a record boundary, inside a record, inside the header, header only', async () => {
      sealed ??= await sealBuffer(key, plain);
      await fails(sealed.subarray(0, HEADER + 2 * RECORD), key, /record 1 failed authentication/);
      await fails(sealed.subarray(0, sealed.length - 7), key, /failed authentication/);
      await fails(sealed.subarray(0, 20), key, /truncated archive/);
      await fails(sealed.subarray(0, HEADER), key, /truncated archive: the final record is missing/);
    });
    test('records reordered, a record dropped, data appended, two archives spliced', async () => {
      sealed ??= await sealBuffer(key, plain);
      const rec = (i: number) => sealed.subarray(HEADER + i * RECORD, HEADER + (i + 1) * RECORD);
      const swapped = Buffer.concat([sealed.subarray(0, HEADER), rec(1), rec(0), sealed.subarray(HEADER + 2 * RECORD)]);
      await fails(swapped, key, /record 0 failed authentication/);
      const dropped = Buffer.concat([sealed.subarray(0, HEADER), rec(0), sealed.subarray(HEADER + 2 * RECORD)]);
      await fails(dropped, key, /record 1 failed authentication/);
      await fails(Buffer.concat([sealed, randomBytes(100)]), key, /failed authentication/);
      const other = await sealBuffer(key, plain);
      const spliced = Buffer.concat([sealed.subarray(0, HEADER + RECORD), other.subarray(HEADER + RECORD)]);
      await fails(spliced, key, /record 1 failed authentication/);
    });
  });

  test('a key of the wrong length is refused', () => {
    assert.throws(() => sealArchive(Buffer.alloc(16)), /32 bytes/);
    assert.throws(() => openArchive(Buffer.alloc(31)), /32 bytes/);
  });

  test('digest counts and hashes what passes, unchanged', async () => {
    const d = digest();
    const data = randomBytes(300_000);
    const out = sink();
    await pipeline(Readable.from([data.subarray(0, 1), data.subarray(1)]), d.stream, out.stream);
    assert.deepEqual(d.result(), { sha256: createHash('sha256').update(data).digest('hex'), size: data.length });
    assert.equal(out.sha(), d.result().sha256);
  });
});
