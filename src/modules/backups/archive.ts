// The backup archive format (decision 0725): gzip, then AES-256-GCM in framed records, as
// streaming transforms that never hold a whole dump. Also the pass-through digest (SHA-256 and
// size of what passes) a backup records and later checks by reading the stored object back.
//
// Layout: a 48-byte header, then records. Header = magic "berthbk" (7) | version 1 (1) |
// log2 of the record size (1) | salt (16) | nonce prefix (7) | key check (16).
// From the archive key and the salt, HKDF-SHA256 derives this archive's encryption key and a MAC
// key; the key check is HMAC(mac key, header[0..32]) cut to 16 bytes, so a wrong key is named as
// such (and GCM's lack of key commitment does not matter). Record i holds exactly `recordSize`
// plaintext bytes except the last (0..recordSize bytes); its nonce is prefix (7) | i (4, BE) |
// final flag (1), and its AAD is header[0..32] | i | final flag: truncation at a record
// boundary, reordering, appending and splicing archives together all fail authentication.
import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual, type Hash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { createGunzip, createGzip, type Gunzip, type Gzip } from 'node:zlib';

const MAGIC = Buffer.from('berthbk', 'latin1');
const VERSION = 1;
const RECORD_LOG2 = 16; // 64 KiB of plaintext per record
const BOUND_LEN = 32; // header bytes bound into the key check and every record's AAD
const HEADER_LEN = 48;
const TAG_LEN = 16;
const MAX_RECORDS = 2 ** 32;
/** gzip level 1: level 6 costs several times the CPU for a few per cent on dump data (decision 0725) */
const ARCHIVE_GZIP_LEVEL = 1;

/** a fresh archive key: 32 random bytes */
export function newArchiveKey(): Buffer {
  return randomBytes(32);
}

interface Keys { enc: Buffer; check: Buffer }

function deriveKeys(key: Buffer, salt: Buffer, bound: Buffer): Keys {
  if (key.length !== 32) throw new Error('an archive key must be 32 bytes');
  const okm = Buffer.from(hkdfSync('sha256', key, salt, 'berth backup archive v1', 64));
  const check = createHmac('sha256', okm.subarray(32)).update(bound).digest().subarray(0, 16);
  return { enc: okm.subarray(0, 32), check };
}

function nonceAndAad(bound: Buffer, index: number, final: boolean): { nonce: Buffer; aad: Buffer } {
  if (index >= MAX_RECORDS) throw new Error('archive too large: more than 2^32 records');
  const nonce = Buffer.alloc(12);
  bound.copy(nonce, 0, 25, 32);
  nonce.writeUInt32BE(index, 7);
  nonce[11] = final ? 1 : 0;
  return { nonce, aad: Buffer.concat([bound, nonce.subarray(7)]) };
}

/** splits plaintext into records and seals them; holds at most one record */
class RecordSealer {
  private pending: Buffer[] = [];
  private pendingLen = 0;
  private index = 0;
  private readonly keys: Keys;
  private readonly bound: Buffer;
  readonly header: Buffer;
  private readonly size = 2 ** RECORD_LOG2;

  constructor(key: Buffer) {
    this.bound = Buffer.concat([MAGIC, Buffer.from([VERSION, RECORD_LOG2]), randomBytes(16), randomBytes(7)]);
    this.keys = deriveKeys(key, this.bound.subarray(9, 25), this.bound);
    this.header = Buffer.concat([this.bound, this.keys.check]);
  }

  private seal(plain: Buffer, final: boolean): Buffer {
    const { nonce, aad } = nonceAndAad(this.bound, this.index++, final);
    const c = createCipheriv('aes-256-gcm', this.keys.enc, nonce).setAAD(aad);
    const body = c.update(plain);
    c.final();
    return Buffer.concat([body, c.getAuthTag()]);
  }

  /** records that are known not to be the last: only once more than a record is pending */
  update(data: Buffer): Buffer[] {
    this.pending.push(data);
    this.pendingLen += data.length;
    const out: Buffer[] = [];
    if (this.pendingLen <= this.size) return out;
    let all = Buffer.concat(this.pending);
    while (all.length > this.size) {
      out.push(this.seal(all.subarray(0, this.size), false));
      all = all.subarray(this.size);
    }
    this.pending = [all];
    this.pendingLen = all.length;
    return out;
  }

  final(): Buffer[] {
    return [this.seal(Buffer.concat(this.pending), true)];
  }
}

/** checks the header and opens records; emits a record's plaintext only once its tag checked */
class RecordOpener {
  private buf: Buffer = Buffer.alloc(0);
  private keys: Keys | null = null;
  private bound: Buffer = Buffer.alloc(0);
  private recordLen = 0;
  private index = 0;
  private readonly key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('an archive key must be 32 bytes');
    this.key = key;
  }

  private readHeader(): void {
    const h = this.buf.subarray(0, HEADER_LEN);
    if (!h.subarray(0, 7).equals(MAGIC)) throw new Error('not a berth backup archive (bad magic)');
    if (h[7] !== VERSION) throw new Error(`unsupported berth backup archive version ${h[7]}`);
    const log2 = h[8]!;
    if (log2 < 10 || log2 > 24) throw new Error(`invalid archive record size 2^${log2}`);
    this.bound = Buffer.from(h.subarray(0, BOUND_LEN));
    const keys = deriveKeys(this.key, this.bound.subarray(9, 25), this.bound);
    if (!timingSafeEqual(keys.check, h.subarray(BOUND_LEN, HEADER_LEN))) {
      throw new Error('wrong archive key (or the archive header is damaged): the key check does not match');
    }
    this.keys = keys;
    this.recordLen = 2 ** log2 + TAG_LEN;
    this.buf = this.buf.subarray(HEADER_LEN);
  }

  private open(record: Buffer, final: boolean): Buffer {
    const { nonce, aad } = nonceAndAad(this.bound, this.index, final);
    const d = createDecipheriv('aes-256-gcm', this.keys!.enc, nonce).setAAD(aad);
    d.setAuthTag(record.subarray(record.length - TAG_LEN));
    const plain = d.update(record.subarray(0, record.length - TAG_LEN));
    try {
      d.final();
    } catch {
      throw new Error(`archive record ${this.index} failed authentication: the archive is corrupted, truncated or reordered`);
    }
    this.index++;
    return plain;
  }

  update(data: Buffer): Buffer[] {
    this.buf = this.buf.length === 0 ? data : Buffer.concat([this.buf, data]);
    if (!this.keys) {
      if (this.buf.length < HEADER_LEN) return [];
      this.readHeader();
    }
    const out: Buffer[] = [];
    // a full record followed by more bytes cannot be the last one
    while (this.buf.length > this.recordLen) {
      out.push(this.open(this.buf.subarray(0, this.recordLen), false));
      this.buf = this.buf.subarray(this.recordLen);
    }
    return out;
  }

  final(): Buffer[] {
    if (!this.keys) throw new Error(`truncated archive: ${this.buf.length} bytes, shorter than its header`);
    if (this.buf.length < TAG_LEN) throw new Error('truncated archive: the final record is missing');
    return [this.open(this.buf, true)];
  }
}

interface Step { update(data: Buffer): Buffer[]; final(): Buffer[] }
const identity: Step = { update: (d) => [d], final: () => [] };

/**
 * One Transform around a zlib stream: `before` turns input into what zlib reads, `after` turns
 * zlib's output into what this stream emits. Backpressure: input waits for zlib's drain; zlib's
 * output is paused while this stream's readable side is full.
 */
class ZlibSandwich extends Transform {
  private done: TransformCallback | null = null;
  private readonly z: Gzip | Gunzip;
  private readonly before: Step;
  private readonly after: Step;
  private readonly lead: Buffer[];

  constructor(z: Gzip | Gunzip, before: Step, after: Step, lead: Buffer[] = []) {
    super();
    this.z = z;
    this.before = before;
    this.after = after;
    this.lead = lead;
    z.on('data', (d: Buffer) => this.emitAll(this.after.update(d)));
    z.on('error', (err) => this.destroy(err instanceof Error && 'code' in err && String(err.code).startsWith('Z_')
      ? new Error(`archive content is not valid gzip: ${err.message}`) : err));
    z.on('end', () => {
      try {
        this.emitAll(this.after.final());
        this.done?.();
      } catch (err) {
        this.done?.(err as Error);
      }
    });
  }

  private emitAll(chunks: Buffer[]): void {
    if (this.lead.length > 0) chunks = [...this.lead.splice(0), ...chunks];
    for (const c of chunks) if (c.length > 0 && !this.push(c)) this.z.pause();
  }

  override _read(size: number): void {
    this.z.resume();
    super._read(size);
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    let parts: Buffer[];
    try {
      parts = this.before.update(chunk);
    } catch (err) {
      return cb(err as Error);
    }
    let ok = true;
    for (const p of parts) ok = this.z.write(p) && ok;
    if (ok) cb();
    else this.z.once('drain', () => cb());
  }

  override _flush(cb: TransformCallback): void {
    let parts: Buffer[];
    try {
      parts = this.before.final();
    } catch (err) {
      return cb(err as Error);
    }
    this.done = cb;
    for (const p of parts) this.z.write(p);
    this.z.end();
    this.z.resume();
  }

  override _destroy(err: Error | null, cb: (error?: Error | null) => void): void {
    this.z.destroy();
    cb(err);
  }
}

const ZLIB_CHUNK = 64 * 1024;

/** gzip then encrypt (the header is emitted first, even for an empty input) */
export function sealArchive(key: Buffer): Transform {
  const sealer = new RecordSealer(key);
  return new ZlibSandwich(createGzip({ level: ARCHIVE_GZIP_LEVEL, chunkSize: ZLIB_CHUNK }), identity, sealer, [sealer.header]);
}

/** the inverse of sealArchive; errors on a wrong key, any damage, truncation or reordering */
export function openArchive(key: Buffer): Transform {
  return new ZlibSandwich(createGunzip({ chunkSize: ZLIB_CHUNK }), new RecordOpener(key), identity);
}

/** a pass-through that hashes (SHA-256) and counts what goes through it; read `result()` once
 * the stream has finished (the hash is final from the first call on) */
export function digest(): { stream: Transform; result(): { sha256: string; size: number } } {
  const hash: Hash = createHash('sha256');
  let size = 0;
  let final: string | null = null;
  const stream = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      hash.update(chunk);
      size += chunk.length;
      cb(null, chunk);
    },
  });
  return {
    stream,
    result() {
      final ??= hash.digest('hex');
      return { sha256: final, size };
    },
  };
}
