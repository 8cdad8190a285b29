// CIDR and IP-address helpers over ipaddr.js, pure (no I/O): parsing of single CIDR ranges and
// comma-separated lists (ingress whitelist/denylist), list membership of a client address
// (agentic-workflow webhook_ip_allowlist), and the private-address test of the webhook SSRF guard.
//
// Accepted CIDR text (parseCidr):
// - IPv4 in strict dotted-quad decimal only (`10.0.0.0/8`); the legacy inet_aton forms that
//   ipaddr.js also understands (`10.1`, `0x0a.0.0.0`, `010.0.0.0` as octal) are rejected as ambiguous.
// - IPv6 in any RFC 4291 text form, including embedded IPv4 (`::ffff:10.0.0.0/104`); no zone id.
// - A bare address is accepted as a single host: /32 for IPv4, /128 for IPv6.
// - Prefix: decimal without leading zeros, 0..32 (IPv4) or 0..128 (IPv6).
// - Host bits after the prefix are tolerated (as nginx does): `10.1.2.3/8` is read as `10.0.0.0/8`;
//   the result carries the normalized network address.
// - No surrounding whitespace; parseCommaSeparatedCidrs trims each entry itself.

import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

interface CidrRange {
  readonly version: 4 | 6;
  /** network address with the host bits cleared, in its usual short text form */
  readonly network: string;
  readonly prefix: number;
  /** `network/prefix` */
  readonly cidr: string;
}

export type ParseCidrResult = ({ readonly ok: true } & CidrRange) | { readonly ok: false; readonly reason: string };

export type ParseCidrListResult =
  | { readonly ok: true; readonly ranges: readonly CidrRange[] }
  | { readonly ok: false; readonly entry: string; readonly index: number; readonly reason: string };

const PREFIX_TEXT = /^(0|[1-9][0-9]{0,2})$/;

interface InternalRange {
  readonly address: Address;
  readonly prefix: number;
}

function parseAddressStrict(text: string): Address | string {
  if (text.includes(':')) {
    if (text.includes('%')) return 'zone ids are not allowed';
    if (!ipaddr.IPv6.isValid(text)) return 'not a valid IPv6 address';
    return ipaddr.IPv6.parse(text);
  }
  if (!ipaddr.IPv4.isValidFourPartDecimal(text)) return 'not a valid IPv4 address (dotted decimal a.b.c.d expected)';
  return ipaddr.IPv4.parse(text);
}

function networkOf(address: Address, prefix: number): Address {
  const bytes = address.toByteArray();
  for (let bit = prefix; bit < bytes.length * 8; bit += 1) {
    const index = Math.floor(bit / 8);
    bytes[index] = bytes[index]! & ~(0x80 >> bit % 8) & 0xff;
  }
  return ipaddr.fromByteArray(bytes);
}

function parseInternal(text: unknown): InternalRange | string {
  if (typeof text !== 'string') return 'not a string';
  if (text.length === 0) return 'empty';
  if (text.trim() !== text) return 'surrounding whitespace';
  const slash = text.indexOf('/');
  const addressText = slash === -1 ? text : text.slice(0, slash);
  const prefixText = slash === -1 ? undefined : text.slice(slash + 1);
  const address = parseAddressStrict(addressText);
  if (typeof address === 'string') return address;
  const maxPrefix = address.kind() === 'ipv4' ? 32 : 128;
  let prefix = maxPrefix;
  if (prefixText !== undefined) {
    if (!PREFIX_TEXT.test(prefixText)) return `prefix "${prefixText}" is not a decimal number`;
    prefix = Number(prefixText);
    if (prefix > maxPrefix) return `prefix /${prefix} is out of range 0..${maxPrefix}`;
  }
  return { address: networkOf(address, prefix), prefix };
}

function toRange(internal: InternalRange): CidrRange {
  const network = internal.address.toString();
  return {
    version: internal.address.kind() === 'ipv4' ? 4 : 6,
    network,
    prefix: internal.prefix,
    cidr: `${network}/${internal.prefix}`,
  };
}

/** Parses one CIDR range (or bare address, read as a single host); see the header for the rules. */
export function parseCidr(text: string): ParseCidrResult {
  const parsed = parseInternal(text);
  if (typeof parsed === 'string') return { ok: false, reason: parsed };
  return { ok: true, ...toRange(parsed) };
}

export function isValidCidr(text: string): boolean {
  return typeof parseInternal(text) !== 'string';
}

/**
 * Parses a comma-separated CIDR list such as `"10.0.0.0/8, 192.168.0.0/16"`. Entries are trimmed.
 * An empty or all-blank string is an empty list; an empty entry inside a list (`"a,,b"`, trailing
 * comma) is an error. The error names the first invalid entry and its zero-based index.
 */
export function parseCommaSeparatedCidrs(text: string): ParseCidrListResult {
  if (typeof text !== 'string') return { ok: false, entry: String(text), index: 0, reason: 'not a string' };
  if (text.trim() === '') return { ok: true, ranges: [] };
  const ranges: CidrRange[] = [];
  const entries = text.split(',');
  for (let index = 0; index < entries.length; index += 1) {
    const entry = entries[index]!.trim();
    const parsed = parseInternal(entry);
    if (typeof parsed === 'string') return { ok: false, entry, index, reason: parsed };
    ranges.push(toRange(parsed));
  }
  return { ok: true, ranges };
}

/** Client address parsed leniently (any form ipaddr.js reads, zone id dropped), IPv4-mapped IPv6 unwrapped. */
function parseClientAddress(ip: string): Address | undefined {
  if (typeof ip !== 'string' || !ipaddr.isValid(ip)) return undefined;
  return ipaddr.process(ip);
}

/** An IPv6 range lying inside ::ffff:0:0/96 is turned into the IPv4 range it maps. */
function unwrapMappedRange(range: InternalRange): InternalRange {
  if (range.address.kind() === 'ipv6' && range.prefix >= 96) {
    const v6 = range.address as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) return { address: v6.toIPv4Address(), prefix: range.prefix - 96 };
  }
  return range;
}

/**
 * True when `ip` lies in at least one of `cidrs`. IPv4-mapped IPv6 client addresses
 * (`::ffff:127.0.0.1`, as Node reports IPv4 peers on dual-stack sockets) are matched as IPv4,
 * and IPv4-mapped IPv6 ranges as the IPv4 ranges they map. Otherwise IPv4 addresses match only
 * IPv4 ranges and IPv6 addresses only IPv6 ranges (nginx semantics: `::/0` does not admit IPv4
 * clients). Entries are trimmed; invalid entries never match and an unparsable `ip` matches nothing. An empty list
 * returns false: whether "no list" means "allow everyone" is the caller's decision.
 */
export function cidrListContains(cidrs: readonly string[], ip: string): boolean {
  const client = parseClientAddress(ip);
  if (client === undefined) return false;
  for (const text of cidrs) {
    const parsed = parseInternal(typeof text === 'string' ? text.trim() : text);
    if (typeof parsed === 'string') continue;
    const range = unwrapMappedRange(parsed);
    if (range.address.kind() !== client.kind()) continue;
    if (client.match(range.address, range.prefix)) return true;
  }
  return false;
}

// ipaddr.js range names (see its SpecialRanges) that are reachable public unicast destinations.
const PUBLIC_IPV4_RANGES: ReadonlySet<string> = new Set(['unicast', 'as112', 'amt']);
const PUBLIC_IPV6_RANGES: ReadonlySet<string> = new Set(['unicast', 'as112v6', 'amt']);
const NAT64_WELL_KNOWN = ipaddr.IPv6.parse('64:ff9b::');

/**
 * True when a connection to `ip` could reach something that is not the public internet; used by
 * the outgoing-webhook SSRF guard on every resolved address. Covers unspecified (0.0.0.0/8, ::),
 * loopback, RFC 1918 and unique-local fc00::/7, link-local (169.254/16 incl. the cloud metadata
 * address 169.254.169.254, fe80::/10), CGNAT 100.64/10, multicast, broadcast, the reserved and
 * documentation ranges, benchmarking, site-local fec0::/10, discard, ORCHID, segment routing,
 * IPv4-translated, 6to4 and Teredo (both tunnel to an IPv4 address of unknown nature).
 * IPv4-mapped addresses (::ffff:a.b.c.d) and NAT64 well-known-prefix addresses (64:ff9b::a.b.c.d)
 * are judged by the IPv4 address they carry.
 * Fails closed: anything that does not parse as an IP address returns true.
 * Addresses are parsed the way the OS resolver would (ipaddr.js lenient forms), so `127.1` is loopback.
 */
export function isPrivateAddress(ip: string): boolean {
  const address = parseClientAddress(ip);
  if (address === undefined) return true;
  if (address.kind() === 'ipv4') return !PUBLIC_IPV4_RANGES.has(address.range());
  const v6 = address as ipaddr.IPv6;
  if (v6.match(NAT64_WELL_KNOWN, 96)) {
    const bytes = v6.toByteArray().slice(12);
    return !PUBLIC_IPV4_RANGES.has((ipaddr.fromByteArray(bytes) as ipaddr.IPv4).range());
  }
  return !PUBLIC_IPV6_RANGES.has(v6.range());
}
