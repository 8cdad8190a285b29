// HTTPS configuration: the ingress's TLS listener, the ACME CA certificates come from, and the
// DNS resolvers custom domains are checked with (decision 0349). Parsed with config.ts.
import { isIP } from 'node:net';
import { ConfigError } from './errors.ts';

export const LETS_ENCRYPT_DIRECTORY = 'https://acme-v02.api.letsencrypt.org/directory';
export const LETS_ENCRYPT_STAGING_DIRECTORY = 'https://acme-staging-v02.api.letsencrypt.org/directory';

export interface HttpsConfig {
  /** INGRESS_HTTPS_PORT: the ingress's TLS listener (SNI), null: none. Default 443 beside INGRESS_PORT 80, 8443 beside 8000, else none */
  readonly port: number | null;
  /** ACME_DIRECTORY_URL: the CA's directory (Let's Encrypt by default; its staging directory to try) */
  readonly acmeDirectoryUrl: string;
  /** ACME_EMAIL: the account's contact, for the CA's expiry notices */
  readonly acmeEmail: string | null;
  /** ACME_CA_BUNDLE: a PEM file of roots trusted for the directory connection only (a private or test CA such as pebble) */
  readonly acmeCaBundle: string | null;
  /** DNS_RESOLVERS: host[:port] list the custom-domain checks ask; empty: the system's resolvers */
  readonly dnsResolvers: string[];
  /** INGRESS_PUBLIC_ADDRESSES: the addresses custom domains may point at with A/AAAA records; empty: those the service's own host name resolves to */
  readonly publicAddresses: string[];
  /** CERTIFICATE_RENEWAL_FRACTION: a certificate is renewed once less than this part of its lifetime is left (default a third) */
  readonly renewalFraction: number;
  /** ACME_DNS01_RFC2136_*: the DNS-01 provider (RFC 2136 dynamic updates signed with TSIG) wildcards get certificates through; null: none */
  readonly dns01: Rfc2136Config | null;
  /** INGRESS_DOMAIN_HTTPS (auto|on|off): the services' own hosts get HTTPS through one wildcard certificate
   * for *.INGRESS_DOMAIN (DNS-01); auto: on when INGRESS_DOMAIN is a public name and a DNS-01 provider and HTTPS port are set */
  readonly ingressDomainHttps: boolean;
}

export type TsigAlgorithm = 'hmac-sha256' | 'hmac-sha512';

export interface Rfc2136Config {
  /** ACME_DNS01_RFC2136_SERVER: the zone's primary server accepting updates (IP, default port 53) */
  readonly host: string;
  readonly port: number;
  /** ACME_DNS01_RFC2136_KEY_NAME: the TSIG key's name (lower case, no trailing dot) */
  readonly keyName: string;
  /** ACME_DNS01_RFC2136_KEY_SECRET: the key's secret, decoded from base64 */
  readonly keySecret: Buffer;
  /** ACME_DNS01_RFC2136_KEY_ALGORITHM: hmac-sha256 (default) or hmac-sha512 */
  readonly keyAlgorithm: TsigAlgorithm;
  /** ACME_DNS01_RFC2136_ZONE: the zone updated; null: found by an SOA look-up walking up the name */
  readonly zone: string | null;
}

type Env = Record<string, string | undefined>;

function list(env: Env, name: string): string[] {
  return (env[name] ?? '').split(',').map((x) => x.trim()).filter(Boolean);
}

const DNS01_REQUIRED = ['ACME_DNS01_RFC2136_SERVER', 'ACME_DNS01_RFC2136_KEY_NAME', 'ACME_DNS01_RFC2136_KEY_SECRET'] as const;
const DNS01_OPTIONAL = ['ACME_DNS01_RFC2136_KEY_ALGORITHM', 'ACME_DNS01_RFC2136_ZONE'] as const;
const DNS_NAME = /^(?!-)[a-z0-9_-]{1,63}(?<!-)(\.(?!-)[a-z0-9_-]{1,63}(?<!-))*$/;

/** the RFC 2136 DNS-01 provider: all of server, key name and secret, or none of the ACME_DNS01_RFC2136_* variables */
function dns01Config(env: Env): Rfc2136Config | null {
  const set = (name: string) => env[name] !== undefined && env[name] !== '';
  const given = [...DNS01_REQUIRED, ...DNS01_OPTIONAL].filter(set);
  if (given.length === 0) return null;
  const missing = DNS01_REQUIRED.filter((n) => !set(n));
  if (missing.length > 0) {
    throw new ConfigError(`${missing[0]} is missing: the RFC 2136 DNS-01 provider needs ${DNS01_REQUIRED.join(', ')} together (${given.join(', ')} ${given.length === 1 ? 'is' : 'are'} set; missing: ${missing.join(', ')})`);
  }
  const server = env.ACME_DNS01_RFC2136_SERVER!.trim();
  let host = server;
  let port = 53;
  if (isIP(server) === 0) {
    const m = /^\[?([^\]]+?)\]?:(\d+)$/.exec(server);
    if (!m || isIP(m[1]!) === 0 || Number(m[2]) < 1 || Number(m[2]) > 65535) {
      throw new ConfigError(`ACME_DNS01_RFC2136_SERVER must be IP[:port] (the zone's primary server, port 53 by default), got "${server}"`);
    }
    host = m[1]!;
    port = Number(m[2]);
  }
  const keyName = env.ACME_DNS01_RFC2136_KEY_NAME!.trim().toLowerCase().replace(/\.$/, '');
  if (!DNS_NAME.test(keyName)) throw new ConfigError(`ACME_DNS01_RFC2136_KEY_NAME must be a DNS name (the TSIG key's name), got "${env.ACME_DNS01_RFC2136_KEY_NAME}"`);
  const rawSecret = env.ACME_DNS01_RFC2136_KEY_SECRET!.trim();
  const keySecret = Buffer.from(rawSecret, 'base64');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(rawSecret) || rawSecret.length % 4 !== 0 || keySecret.length < 16) {
    throw new ConfigError('ACME_DNS01_RFC2136_KEY_SECRET must be the TSIG key\'s secret in base64, at least 16 bytes (e.g. from `tsig-keygen` or `keymgr -t`)');
  }
  const algorithm = (env.ACME_DNS01_RFC2136_KEY_ALGORITHM || 'hmac-sha256').trim().toLowerCase();
  if (algorithm !== 'hmac-sha256' && algorithm !== 'hmac-sha512') {
    throw new ConfigError(`ACME_DNS01_RFC2136_KEY_ALGORITHM must be hmac-sha256 or hmac-sha512, got "${env.ACME_DNS01_RFC2136_KEY_ALGORITHM}"`);
  }
  const rawZone = env.ACME_DNS01_RFC2136_ZONE?.trim().toLowerCase().replace(/\.$/, '') || null;
  if (rawZone !== null && !DNS_NAME.test(rawZone)) throw new ConfigError(`ACME_DNS01_RFC2136_ZONE must be a DNS zone name, got "${env.ACME_DNS01_RFC2136_ZONE}"`);
  return { host, port, keyName, keySecret, keyAlgorithm: algorithm, zone: rawZone };
}

function defaultHttpsPort(env: Env): number | null {
  const http = env.INGRESS_PORT === undefined || env.INGRESS_PORT === '' ? '8000' : env.INGRESS_PORT;
  return http === '80' ? 443 : http === '8000' ? 8443 : null;
}

export function httpsConfig(env: Env): HttpsConfig {
  const rawPort = env.INGRESS_HTTPS_PORT;
  let port = defaultHttpsPort(env);
  if (rawPort !== undefined && rawPort !== '') {
    if (!/^\d+$/.test(rawPort) || Number(rawPort) > 65535) throw new ConfigError(`INGRESS_HTTPS_PORT must be a port (1-65535) or 0 for none, got "${rawPort}"`);
    port = Number(rawPort) === 0 ? null : Number(rawPort);
  }
  if (port !== null && String(port) === (env.INGRESS_PORT || '8000')) throw new ConfigError(`INGRESS_HTTPS_PORT must differ from INGRESS_PORT (${port})`);
  const directory = env.ACME_DIRECTORY_URL || LETS_ENCRYPT_DIRECTORY;
  try {
    const u = new URL(directory);
    if (u.protocol !== 'https:') throw new Error('not https');
  } catch {
    throw new ConfigError(`ACME_DIRECTORY_URL must be an https:// URL, got "${directory}"`);
  }
  const email = env.ACME_EMAIL || null;
  if (email !== null && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) throw new ConfigError(`ACME_EMAIL must be an e-mail address, got "${email}"`);
  const dnsResolvers = list(env, 'DNS_RESOLVERS');
  for (const r of dnsResolvers) {
    if (isIP(r) !== 0) continue; // a bare address, IPv6 included (::1)
    const m = /^\[?([^\]]+?)\]?(?::(\d+))?$/.exec(r);
    if (!m || isIP(m[1]!) === 0) throw new ConfigError(`DNS_RESOLVERS must be IP[:port] entries separated by commas, got "${r}"`);
  }
  const publicAddresses = list(env, 'INGRESS_PUBLIC_ADDRESSES');
  for (const a of publicAddresses) if (isIP(a) === 0) throw new ConfigError(`INGRESS_PUBLIC_ADDRESSES must be IP addresses separated by commas, got "${a}"`);
  const rawFraction = env.CERTIFICATE_RENEWAL_FRACTION;
  const renewalFraction = rawFraction === undefined || rawFraction === '' ? 1 / 3 : Number(rawFraction);
  if (!Number.isFinite(renewalFraction) || renewalFraction <= 0 || renewalFraction > 1) {
    throw new ConfigError(`CERTIFICATE_RENEWAL_FRACTION must be a number above 0 and at most 1, got "${rawFraction}"`);
  }
  const dns01 = dns01Config(env);
  return {
    port, acmeDirectoryUrl: directory, acmeEmail: email, acmeCaBundle: env.ACME_CA_BUNDLE || null,
    dnsResolvers, publicAddresses, renewalFraction, dns01, ingressDomainHttps: ingressDomainHttps(env, port, dns01 !== null),
  };
}

/** names that are never public: loopback, the reserved test and documentation names, local networks */
const PRIVATE_SUFFIX = /(^|\.)(localhost|test|example|invalid|local|internal|lan|home\.arpa)$/;

function ingressDomainHttps(env: Env, port: number | null, dns01: boolean): boolean {
  const mode = (env.INGRESS_DOMAIN_HTTPS || 'auto').trim().toLowerCase();
  if (!['auto', 'on', 'off'].includes(mode)) throw new ConfigError(`INGRESS_DOMAIN_HTTPS must be auto, on or off, got "${env.INGRESS_DOMAIN_HTTPS}"`);
  const domain = (env.INGRESS_DOMAIN || 'localhost').trim().toLowerCase().replace(/^\.+|\.+$/g, '');
  const publicName = domain.includes('.') && !PRIVATE_SUFFIX.test(domain);
  if (mode === 'off') return false;
  if (mode === 'auto') return port !== null && dns01 && publicName;
  if (port === null) throw new ConfigError('INGRESS_DOMAIN_HTTPS=on needs the ingress\'s HTTPS listener: INGRESS_HTTPS_PORT is 0');
  if (!dns01) throw new ConfigError(`INGRESS_DOMAIN_HTTPS=on needs a DNS-01 provider (ACME_DNS01_RFC2136_SERVER, _KEY_NAME, _KEY_SECRET): the hosts under ${domain} share one wildcard certificate, which only DNS-01 can get`);
  return true;
}
