// DNS as a custom domain's check sees it: a resolver on DNS_RESOLVERS (or the system's), the CNAME
// chain followed from the domain and the addresses at its end, and the addresses berth's ingress
// is reached at (INGRESS_PUBLIC_ADDRESSES, else what the service's own host name resolves to,
// else INGRESS_HOST when it is one address).
import { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { DnsAnswer } from './domains.rules.ts';

const ABSENT = new Set(['ENODATA', 'ENOTFOUND', 'NXDOMAIN', 'ENONAME']);
const MAX_CHAIN = 8;

export interface DomainDns {
  lookup(domain: string): Promise<DnsAnswer>;
  /** the addresses a domain may resolve to and be berth's */
  expected(validationDomain: string): Promise<string[]>;
}

export function createDomainDns(o: { resolvers: readonly string[]; publicAddresses: readonly string[]; ingressHost: string; timeoutMs?: number }): DomainDns {
  const resolver = new Resolver({ timeout: o.timeoutMs ?? 3000, tries: 2 });
  if (o.resolvers.length > 0) resolver.setServers([...o.resolvers]);

  async function absentOr<T>(work: Promise<T>, none: T): Promise<T> {
    try { return await work; } catch (err) {
      if (ABSENT.has((err as NodeJS.ErrnoException).code ?? '')) return none;
      throw err;
    }
  }

  async function addresses(name: string): Promise<string[]> {
    const [v4, v6] = await Promise.all([absentOr(resolver.resolve4(name), []), absentOr(resolver.resolve6(name), [])]);
    return [...v4, ...v6];
  }

  async function lookup(domain: string): Promise<DnsAnswer> {
    const cnames: string[] = [];
    try {
      let name = domain.replace(/^\*\./, '_wildcard-check.');
      for (let hop = 0; hop < MAX_CHAIN; hop++) {
        const next = (await absentOr(resolver.resolveCname(name), []))[0];
        if (!next) break;
        name = next.toLowerCase().replace(/\.$/, '');
        cnames.push(name);
      }
      return { cnames, addresses: await addresses(name) };
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      return { cnames, addresses: [], error: `${e.code ?? 'error'}${e.message ? ` (${e.message})` : ''}` };
    }
  }

  async function expected(validationDomain: string): Promise<string[]> {
    if (o.publicAddresses.length > 0) return [...o.publicAddresses];
    const own = await addresses(validationDomain).catch(() => []);
    if (own.length > 0) return own;
    return isIP(o.ingressHost) !== 0 && o.ingressHost !== '0.0.0.0' && o.ingressHost !== '::' ? [o.ingressHost] : [];
  }

  return { lookup, expected };
}
