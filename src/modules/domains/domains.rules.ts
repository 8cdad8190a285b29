// Custom-domain rules, pure: what a domain name may be (punycode, labels, no IP, not berth's own
// INGRESS_DOMAIN hosts, wildcards only with a DNS-01 provider), the DNS record a user creates,
// the check's verdict from what DNS answered, and the back-off of a failed certificate order.
import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import type { CheckedStatus } from './domains.schemas.ts';

export type DomainVerdict = { ok: true; domain: string; wildcard: boolean } | { ok: false; message: string };

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** the form a domain is stored and looked up in: lower case, punycode, no trailing dot (any spelling finds it) */
export function storedForm(raw: string): string {
  const text = raw.trim().toLowerCase().replace(/\.$/, '');
  const wildcard = text.startsWith('*.');
  const ascii = domainToASCII(wildcard ? text.slice(2) : text) || text;
  return wildcard ? `*.${ascii}` : ascii;
}

/** the stored form of a requested domain (storedForm), or why it is refused */
export function normalizeDomain(raw: string, o: { ingressDomain: string; dns01: boolean }): DomainVerdict {
  const text = raw.trim().toLowerCase().replace(/\.$/, '');
  const wildcard = text.startsWith('*.');
  const rest = wildcard ? text.slice(2) : text;
  if (isIP(rest) !== 0) return { ok: false, message: `domain: ${raw} is an IP address; a custom domain is a host name` };
  const ascii = domainToASCII(rest);
  if (ascii === '' || ascii.length > 253 - (wildcard ? 2 : 0)) return { ok: false, message: `domain: "${raw}" is not a valid host name` };
  // the URL host parser reads short and hex IPv4 forms (127.1, 0x7f.1) as addresses
  if (isIP(ascii) !== 0) return { ok: false, message: `domain: ${raw} is an IP address (${ascii}); a custom domain is a host name` };
  const labels = ascii.split('.');
  if (labels.length < 2) return { ok: false, message: `domain: "${raw}" needs at least two labels (e.g. www.example.com)` };
  const bad = labels.find((l) => !LABEL.test(l));
  if (bad !== undefined) return { ok: false, message: `domain: "${raw}" has an invalid label "${bad}" (letters, digits and inner dashes, 1 to 63 characters)` };
  const own = o.ingressDomain.toLowerCase();
  if (ascii === own || ascii.endsWith(`.${own}`)) {
    return { ok: false, message: `domain: ${ascii} is under INGRESS_DOMAIN (${own}), whose host names berth gives services itself` };
  }
  if (wildcard && !o.dns01) {
    return { ok: false, message: `domain: a wildcard (${text}) can only get a certificate through a DNS-01 challenge, and no DNS-01 provider is configured` };
  }
  return { ok: true, domain: wildcard ? `*.${ascii}` : ascii, wildcard };
}

/** an apex domain (example.com) cannot hold a CNAME: it needs an A record */
export const isApex = (domain: string): boolean => domain.replace(/^\*\./, '').split('.').length === 2;

/** the record the user creates at their DNS provider */
export function dnsRecord(domain: string, validationDomain: string, publicAddresses: readonly string[]): { type: string; name: string; value: string } {
  if (isApex(domain) && publicAddresses.length > 0) return { type: isIP(publicAddresses[0]!) === 6 ? 'AAAA' : 'A', name: domain, value: publicAddresses[0]! };
  return { type: 'CNAME', name: domain, value: validationDomain };
}

/** what DNS answered for a domain (names lower case, no trailing dot) */
export interface DnsAnswer {
  /** the CNAME chain followed from the domain */
  cnames: string[];
  addresses: string[];
  /** a failure other than "no such name / no record" (timeout, refused, SERVFAIL) */
  error?: string;
}

export interface Verdict { status: CheckedStatus; details: string | null }

/** the check's verdict: berth's host in the CNAME chain, or an address berth listens on; a CDN domain needs only to resolve */
export function judge(domain: string, answer: DnsAnswer, o: { validationDomain: string; expected: readonly string[]; useCdn: boolean }): Verdict {
  const record = `create a CNAME record ${domain} → ${o.validationDomain}`;
  if (answer.error) return { status: 'GENERIC_FAILURE', details: `${domain} could not be resolved: ${answer.error}` };
  if (answer.cnames.includes(o.validationDomain)) return { status: 'MATCHES_LOAD_BALANCER_HOST', details: null };
  if (answer.addresses.length === 0) {
    return { status: 'DOMAIN_NOT_CONFIGURED', details: `${domain} has no A, AAAA or CNAME record: ${record}` };
  }
  if (o.useCdn) return { status: 'RESOLVES_TO_IP', details: null };
  if (answer.addresses.some((a) => o.expected.includes(a))) return { status: 'MATCHES_LOAD_BALANCER_HOST', details: null };
  const via = answer.cnames.length > 0 ? ` (through CNAME ${answer.cnames.join(' → ')})` : '';
  const want = o.expected.length > 0 ? `${o.validationDomain} (${o.expected.join(', ')})` : o.validationDomain;
  return { status: 'DOMAIN_LINKED_TO_WRONG_HOST', details: `${domain} resolves to ${answer.addresses.join(', ')}${via}; it must point to ${want}: ${record}` };
}

/** a check that lets berth serve the domain */
export const passes = (v: Verdict): boolean => v.status === 'MATCHES_LOAD_BALANCER_HOST' || v.status === 'RESOLVES_TO_IP';

/** when a failed order is tried again: the CA's own Retry-After when it gave one, else 5 min doubling per failure, at most a day */
export function retryAt(now: Date, attempts: number, caRetryAfter?: Date | null): Date {
  if (caRetryAfter && caRetryAfter > now) return caRetryAfter;
  const minutes = Math.min(24 * 60, 5 * 2 ** Math.max(0, attempts - 1));
  return new Date(now.getTime() + minutes * 60_000);
}

/** a certificate is due for renewal once less than `fraction` of its lifetime is left */
export function renewalDue(notBefore: Date, notAfter: Date, now: Date, fraction: number): boolean {
  const life = notAfter.getTime() - notBefore.getTime();
  return notAfter.getTime() - now.getTime() < life * fraction;
}
