// The DNS-01 provider of wildcard custom domains (decision 0349): RFC 2136 dynamic updates of the
// TXT RRset at `_acme-challenge.<name>`, sent to the zone's primary server
// (ACME_DNS01_RFC2136_SERVER) and signed with TSIG (RFC 8945: HMAC-SHA256 or -SHA512 over the
// message and the TSIG variables, time signed, fudge 300 s). dns-packet encodes and decodes the
// messages; the TSIG record and its MAC are made over the wire bytes here. Every answer, to an
// update or to a query, must carry a TSIG whose MAC verifies with the same key (an unsigned or
// badly signed answer is refused: anyone on the path could forge "NOERROR"). UDP first, TCP when
// the answer is truncated. `present` returns once the value is served by the zone's authoritative
// server, so the CA is only told to look when there is something to see.
import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { connect, isIP } from 'node:net';
import * as dnsPacket from 'dns-packet';
import type { Rfc2136Config, TsigAlgorithm } from '../../config/https.ts';

export interface Dns01Provider {
  /** adds `value` to the TXT RRset of `_acme-challenge.<domain>` (a leading `*.` is dropped) and waits until the zone's server serves it */
  present(domain: string, value: string): Promise<void>;
  /** removes `value` from that RRset (other values, e.g. another order's, stay) */
  cleanup(domain: string, value: string): Promise<void>;
}

/** the DNS server refused, or its answer could not be trusted; the message says which and what to check */
export class Rfc2136Error extends Error {
  override name = 'Rfc2136Error';
}

export interface Rfc2136Options {
  /** one UDP or TCP exchange (default 5 s; UDP is tried 3 times) */
  timeoutMs?: number;
  /** how long `present` waits for the value to be served (default 2 min) */
  propagationTimeoutMs?: number;
  /** between two checks of the value (default 1 s) */
  pollMs?: number;
  /** the TTL of the TXT record (default 60 s) */
  ttl?: number;
}

const FUDGE = 300;
const TYPE_TSIG = 250;
const CLASS_ANY = 255;
const CLASS_NONE = 254;
const OPCODE_UPDATE = 5;
const RCODES = ['NOERROR', 'FORMERR', 'SERVFAIL', 'NXDOMAIN', 'NOTIMP', 'REFUSED', 'YXDOMAIN', 'YXRRSET', 'NXRRSET', 'NOTAUTH', 'NOTZONE'];
const TSIG_ERRORS: Record<number, string> = { 16: 'BADSIG', 17: 'BADKEY', 18: 'BADTIME', 19: 'BADMODE', 20: 'BADNAME', 21: 'BADALG', 22: 'BADTRUNC' };
const HASH: Record<TsigAlgorithm, 'sha256' | 'sha512'> = { 'hmac-sha256': 'sha256', 'hmac-sha512': 'sha512' };

const rcodeName = (code: number): string => RCODES[code] ?? `RCODE ${code}`;
const bare = (name: string): string => name.toLowerCase().replace(/\.$/, '');

/** a name in uncompressed wire form, lower case (the canonical form TSIG's variables use) */
function wireName(name: string): Buffer {
  const labels = bare(name).split('.').filter(Boolean);
  return Buffer.concat([...labels.map((l) => Buffer.concat([Buffer.from([Buffer.byteLength(l)]), Buffer.from(l)])), Buffer.from([0])]);
}

/** reads an uncompressed name (TSIG's owner and algorithm names are never compressed) */
function readName(buf: Buffer, offset: number): { name: string; end: number } {
  const labels: string[] = [];
  let at = offset;
  for (;;) {
    const len = buf[at];
    if (len === undefined || (len & 0xc0) !== 0) throw new Rfc2136Error('malformed TSIG record in the answer');
    if (len === 0) return { name: labels.join('.').toLowerCase(), end: at + 1 };
    labels.push(buf.toString('latin1', at + 1, at + 1 + len));
    at += len + 1;
  }
}

function skipName(buf: Buffer, offset: number): number {
  let at = offset;
  for (;;) {
    const len = buf[at];
    if (len === undefined) throw new Rfc2136Error('malformed answer (a name runs past the end)');
    if (len === 0) return at + 1;
    if ((len & 0xc0) === 0xc0) return at + 2;
    at += len + 1;
  }
}

const uint48 = (seconds: number): Buffer => {
  const b = Buffer.alloc(6);
  b.writeUIntBE(seconds, 0, 6);
  return b;
};
const u16 = (n: number): Buffer => {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n);
  return b;
};

interface TsigKey { name: string; algorithm: TsigAlgorithm; secret: Buffer }

/** the TSIG variables (RFC 8945 4.3.3) */
function tsigVariables(key: TsigKey, timeSigned: number, fudge: number, error: number, other: Buffer): Buffer {
  return Buffer.concat([
    wireName(key.name), u16(CLASS_ANY), Buffer.alloc(4), wireName(key.algorithm),
    uint48(timeSigned), u16(fudge), u16(error), u16(other.length), other,
  ]);
}

/** `message` (without TSIG) with a TSIG record appended and ARCOUNT counted up; the MAC, which the answer's MAC covers */
function signMessage(message: Buffer, key: TsigKey, o: { timeSigned?: number; requestMac?: Buffer } = {}): { wire: Buffer; mac: Buffer } {
  const timeSigned = o.timeSigned ?? Math.floor(Date.now() / 1000);
  const hmac = createHmac(HASH[key.algorithm], key.secret);
  if (o.requestMac) hmac.update(Buffer.concat([u16(o.requestMac.length), o.requestMac]));
  hmac.update(message);
  hmac.update(tsigVariables(key, timeSigned, FUDGE, 0, Buffer.alloc(0)));
  const mac = hmac.digest();
  const rdata = Buffer.concat([wireName(key.algorithm), uint48(timeSigned), u16(FUDGE), u16(mac.length), mac, message.subarray(0, 2), u16(0), u16(0)]);
  const rr = Buffer.concat([wireName(key.name), u16(TYPE_TSIG), u16(CLASS_ANY), Buffer.alloc(4), u16(rdata.length), rdata]);
  const wire = Buffer.concat([message, rr]);
  wire.writeUInt16BE(message.readUInt16BE(10) + 1, 10);
  return { wire, mac };
}

interface Tsig { keyName: string; algorithm: string; timeSigned: number; fudge: number; mac: Buffer; originalId: number; error: number; other: Buffer }

/** the answer's TSIG record (the last additional one) and the answer without it, or null when unsigned */
function splitTsig(answer: Buffer): { tsig: Tsig; unsigned: Buffer } | null {
  const counts = [4, 6, 8, 10].map((at) => answer.readUInt16BE(at));
  const [qd, an, ns, ar] = counts as [number, number, number, number];
  if (ar === 0) return null;
  let at = 12;
  for (let i = 0; i < qd; i++) at = skipName(answer, at) + 4;
  for (let i = 0; i < an + ns + ar - 1; i++) {
    at = skipName(answer, at);
    at += 10 + answer.readUInt16BE(at + 8);
  }
  const start = at;
  const owner = readName(answer, start);
  if (answer.readUInt16BE(owner.end) !== TYPE_TSIG) return null;
  let p = owner.end + 10;
  const algorithm = readName(answer, p);
  p = algorithm.end;
  const timeSigned = answer.readUIntBE(p, 6);
  const fudge = answer.readUInt16BE(p + 6);
  const macSize = answer.readUInt16BE(p + 8);
  const mac = answer.subarray(p + 10, p + 10 + macSize);
  p += 10 + macSize;
  const originalId = answer.readUInt16BE(p);
  const error = answer.readUInt16BE(p + 2);
  const other = answer.subarray(p + 6, p + 6 + answer.readUInt16BE(p + 4));
  const unsigned = Buffer.from(answer.subarray(0, start));
  unsigned.writeUInt16BE(originalId, 0);
  unsigned.writeUInt16BE(ar - 1, 10);
  return { tsig: { keyName: owner.name, algorithm: algorithm.name, timeSigned, fudge, mac, originalId, error, other }, unsigned };
}

/** checks the answer's TSIG against the request's MAC; throws saying why it is not trusted */
function verifyAnswer(answer: Buffer, key: TsigKey, requestMac: Buffer, server: string): void {
  const split = splitTsig(answer);
  const rcode = answer.readUInt16BE(2) & 0xf;
  if (!split) {
    throw new Rfc2136Error(`the DNS server ${server} answered ${rcodeName(rcode)} without a TSIG signature; an unsigned answer is not trusted (is ${server} the server that holds key "${key.name}"?)`);
  }
  const { tsig, unsigned } = split;
  if (tsig.error !== 0 && tsig.mac.length === 0) {
    // the server could not verify the request: it says why, unsigned (RFC 8945 5.3.2)
    const why = TSIG_ERRORS[tsig.error] ?? `TSIG error ${tsig.error}`;
    const hint = tsig.error === 17 ? `the server knows no key "${key.name}" with algorithm ${key.algorithm}, or its policy does not let that key make this change`
      : tsig.error === 16 ? `the secret of key "${key.name}" (ACME_DNS01_RFC2136_KEY_SECRET) is not the server's`
        : tsig.error === 18 ? 'this host\'s clock and the server\'s differ by more than 5 minutes'
          : 'the server refused the signature';
    throw new Rfc2136Error(`the DNS server ${server} refused the TSIG signature: ${rcodeName(rcode)}/${why} (${hint})`);
  }
  if (tsig.keyName !== bare(key.name) || tsig.algorithm !== key.algorithm) {
    throw new Rfc2136Error(`the DNS server ${server} signed its answer with key "${tsig.keyName}" (${tsig.algorithm}), not "${key.name}" (${key.algorithm}); refused`);
  }
  const expected = createHmac(HASH[key.algorithm], key.secret)
    .update(Buffer.concat([u16(requestMac.length), requestMac, unsigned, tsigVariables(key, tsig.timeSigned, tsig.fudge, tsig.error, tsig.other)]))
    .digest();
  if (tsig.mac.length !== expected.length || !timingSafeEqual(tsig.mac, expected)) {
    throw new Rfc2136Error(`the TSIG signature of the DNS server ${server}'s answer does not verify with key "${key.name}"; refused`);
  }
  if (Math.abs(Date.now() / 1000 - tsig.timeSigned) > tsig.fudge) {
    throw new Rfc2136Error(`the DNS server ${server} signed its answer at ${new Date(tsig.timeSigned * 1000).toISOString()}, outside the ${tsig.fudge} s allowed: the clocks differ; refused`);
  }
  if (tsig.error !== 0) throw new Rfc2136Error(`the DNS server ${server} answered with TSIG error ${TSIG_ERRORS[tsig.error] ?? tsig.error}`);
}

function udpExchange(host: string, port: number, wire: Buffer, timeoutMs: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = createSocket(isIP(host) === 6 ? 'udp6' : 'udp4');
    const id = wire.readUInt16BE(0);
    const done = (err: Error | null, answer?: Buffer) => {
      clearTimeout(timer);
      socket.close();
      if (err) reject(err); else resolve(answer!);
    };
    const timer = setTimeout(() => done(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })), timeoutMs);
    socket.on('message', (msg, from) => {
      // only the server's answer to this message (a stray datagram is no answer)
      if (from.port !== port || msg.length < 12 || msg.readUInt16BE(0) !== id || (msg.readUInt16BE(2) & 0x8000) === 0) return;
      done(null, msg);
    });
    socket.on('error', (err) => done(err));
    socket.send(wire, port, host, (err) => { if (err) done(err); });
  });
}

function tcpExchange(host: string, port: number, wire: Buffer, timeoutMs: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    let got = Buffer.alloc(0);
    const done = (err: Error | null, answer?: Buffer) => {
      clearTimeout(timer);
      socket.destroy();
      if (err) reject(err); else resolve(answer!);
    };
    const timer = setTimeout(() => done(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })), timeoutMs);
    socket.on('connect', () => socket.write(Buffer.concat([u16(wire.length), wire])));
    socket.on('data', (d) => {
      got = Buffer.concat([got, d]);
      if (got.length >= 2 && got.length >= 2 + got.readUInt16BE(0)) done(null, got.subarray(2, 2 + got.readUInt16BE(0)));
    });
    socket.on('error', (err) => done(err));
    socket.on('close', () => done(new Error('the connection closed before an answer')));
  });
}

export function createRfc2136Provider(cfg: Rfc2136Config, o: Rfc2136Options = {}): Dns01Provider {
  const key: TsigKey = { name: cfg.keyName, algorithm: cfg.keyAlgorithm, secret: cfg.keySecret };
  const server = isIP(cfg.host) === 6 ? `[${cfg.host}]:${cfg.port}` : `${cfg.host}:${cfg.port}`;
  const timeoutMs = o.timeoutMs ?? 5000;
  const zones = new Map<string, string>();

  /** one signed exchange: UDP (3 tries), TCP when the answer is truncated; the verified answer, decoded */
  async function exchange(message: Buffer, o2: { unsignedRefusal?: boolean } = {}): Promise<{ packet: dnsPacket.DecodedPacket; rcode: number }> {
    const { wire, mac } = signMessage(message, key);
    let answer: Buffer | null = null;
    let lastErr: unknown = null;
    for (let attempt = 0; attempt < 3 && answer === null; attempt++) {
      answer = await udpExchange(cfg.host, cfg.port, wire, timeoutMs).catch((err) => { lastErr = err; return null; });
    }
    if (answer === null || (answer.readUInt16BE(2) & dnsPacket.TRUNCATED_RESPONSE) !== 0) {
      answer = await tcpExchange(cfg.host, cfg.port, wire, timeoutMs).catch((err: unknown) => {
        throw new Rfc2136Error(`the DNS server ${server} did not answer over UDP${answer ? ' in full' : ` (${(lastErr as Error)?.message ?? 'no answer'})`} nor over TCP (${(err as Error).message})`);
      });
    }
    if (answer.readUInt16BE(0) !== wire.readUInt16BE(0)) throw new Rfc2136Error(`the DNS server ${server} answered another message (id mismatch); refused`);
    const rcode = answer.readUInt16BE(2) & 0xf;
    // a server not authoritative for a name refuses unsigned (Knot does): believing it only makes the zone look-up go on to the parent
    try {
      if (!(o2.unsignedRefusal && (rcode === 5 || rcode === 9) && splitTsig(answer) === null)) verifyAnswer(answer, key, mac, server);
    } catch (err) {
      // a record running past the end reads as a RangeError: a malformed answer is as untrusted as a badly signed one
      throw err instanceof Rfc2136Error ? err : new Rfc2136Error(`the DNS server ${server}'s answer is malformed (${(err as Error).message}); refused`);
    }
    let packet: dnsPacket.DecodedPacket;
    try { packet = dnsPacket.decode(answer); } catch (err) { throw new Rfc2136Error(`the DNS server ${server}'s answer could not be read: ${(err as Error).message}`); }
    return { packet, rcode };
  }

  const query = (name: string, type: 'SOA' | 'TXT') =>
    exchange(dnsPacket.encode({ id: randomInt(65536), flags: 0, questions: [{ name, type, class: 'IN' }] }), { unsignedRefusal: type === 'SOA' });

  /** the zone holding `name`: ACME_DNS01_RFC2136_ZONE, else the owner of the SOA the server answers with, walking up */
  async function zoneOf(name: string): Promise<string> {
    if (cfg.zone) return cfg.zone;
    const known = zones.get(name);
    if (known) return known;
    const labels = name.split('.');
    for (let i = 0; i < labels.length - 1; i++) {
      const candidate = labels.slice(i).join('.');
      const { packet, rcode } = await query(candidate, 'SOA');
      if (rcode !== 0 && rcode !== 3) continue; // REFUSED, NOTAUTH…: not this server's zone; try the parent
      const soa = [...(packet.answers ?? []), ...(packet.authorities ?? [])].find((rr) => rr.type === 'SOA');
      const owner = soa ? bare(soa.name) : null;
      if (owner && (name === owner || name.endsWith(`.${owner}`))) {
        zones.set(name, owner);
        return owner;
      }
    }
    throw new Rfc2136Error(`the DNS server ${server} is authoritative for no zone holding ${name} (no SOA found walking up the name); set ACME_DNS01_RFC2136_ZONE`);
  }

  async function update(name: string, value: string, op: 'add' | 'delete'): Promise<void> {
    const zone = await zoneOf(name);
    const message = dnsPacket.encode({
      id: randomInt(65536), flags: OPCODE_UPDATE << 11,
      questions: [{ name: zone, type: 'SOA', class: 'IN' }],
      authorities: [{ name, type: 'TXT', class: 'IN', ttl: op === 'add' ? (o.ttl ?? 60) : 0, data: value }],
    });
    if (op === 'delete') {
      // "delete an RR from an RRset" is class NONE (RFC 2136 2.5.4), which dns-packet does not name: set it in the record's class field
      const at = 12 + wireName(zone).length + 4 + wireName(name).length + 2;
      message.writeUInt16BE(CLASS_NONE, at);
    }
    const what = `${op === 'add' ? 'add' : 'delete'} TXT ${name} in zone ${zone}`;
    const { rcode } = await exchange(message).catch((err: unknown) => {
      throw err instanceof Rfc2136Error ? new Rfc2136Error(`cannot ${what}: ${err.message}`) : err;
    });
    if (rcode === 0) return;
    const hint = rcode === 5 ? `its policy does not let key "${key.name}" change TXT records at ${name}`
      : rcode === 9 ? `it is not authoritative for zone ${zone}, or not its primary`
        : rcode === 10 ? `${name} is not in zone ${zone}`
          : 'the update was not applied';
    throw new Rfc2136Error(`cannot ${what}: the DNS server ${server} answered ${rcodeName(rcode)} (${hint})`);
  }

  /** whether the server answers authoritatively with `value` among the TXT records of `name` */
  async function served(name: string, value: string): Promise<boolean> {
    const { packet, rcode } = await query(name, 'TXT');
    if (rcode !== 0 || !packet.flag_aa) return false;
    return (packet.answers ?? []).some((rr) => rr.type === 'TXT' && bare(rr.name) === name
      && [rr.data].flat().map((d) => (typeof d === 'string' ? d : d.toString('utf8'))).join('') === value);
  }

  const recordName = (domain: string) => `_acme-challenge.${bare(domain).replace(/^\*\./, '')}`;

  return {
    async present(domain, value) {
      const name = recordName(domain);
      await update(name, value, 'add');
      const deadline = Date.now() + (o.propagationTimeoutMs ?? 120_000);
      for (;;) {
        if (await served(name, value)) return;
        if (Date.now() > deadline) throw new Rfc2136Error(`TXT ${name} was added but the DNS server ${server} did not serve it within ${Math.round((o.propagationTimeoutMs ?? 120_000) / 1000)} s`);
        await new Promise((r) => setTimeout(r, o.pollMs ?? 1000));
      }
    },
    async cleanup(domain, value) {
      await update(recordName(domain), value, 'delete');
    },
  };
}
