// HTTPS on berth's ingress (decision 0349): the TLS listener's lines of the configuration, custom
// domains as aliases of a service's own host (domains.map: a redeploy of the service never
// touches them; `*.shop.example` serves every one-label name under it, an exact domain first), the hosts whose certificate is live (https.map: their HTTP redirects to HTTPS,
// ACME challenges excepted, which go to berth's API), and certificates installed through the
// runtime API (new/set/commit ssl cert, add/del ssl crt-list): no reload, so no connection is cut
// and open ones keep the certificate they started with. Every change is also written to the files
// HAProxy loads at a start, so a restarted proxy serves the same.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../../lib/atomic-write.ts';

const DOMAINS_MAP = 'domains.map';
const HTTPS_MAP = 'https.map';
const CERT_LIST = 'certs.list';
const CERT_DIR = 'certs';
const ACME_BACKEND = 'berth-acme';
const CHALLENGE_PATH = '/.well-known/acme-challenge/';

export interface TlsListen {
  /** INGRESS_HTTPS_PORT, null: no TLS listener */
  httpsPort: number | null;
  /** where ACME HTTP-01 challenges are answered (berth's API, host:port), null: not forwarded */
  acmeUpstream: string | null;
}

const hostExpr = 'req.hdr(host),field(1,:),lower';
/** a wildcard custom domain's key: the host with its first label replaced by `*` (a.shop.example → *.shop.example; one label deep, as a wildcard certificate) */
const WILDCARD_VAR = 'txn.berth_wildcard';

/** the frontend's TLS, alias, redirect and challenge lines (before its use_backend lines) */
export function frontendTlsLines(listen: string, tls: TlsListen | undefined): string[] {
  const lines: string[] = [`  http-request set-var(${WILDCARD_VAR}) ${hostExpr},regsub(^[^.]+[.],*.)`];
  // an exact domain wins over a wildcard one
  const noExact = `!{ ${hostExpr},map(${DOMAINS_MAP}) -m found }`;
  if (tls?.httpsPort) {
    const at = listen.lastIndexOf(':');
    lines.push(`  bind ${listen.slice(0, at)}:${tls.httpsPort} ssl crt-list ${CERT_LIST} strict-sni alpn http/1.1`);
    lines.push('  http-request set-header X-Forwarded-Proto https if { ssl_fc }');
    const port = tls.httpsPort === 443 ? '' : `:${tls.httpsPort}`;
    lines.push(`  http-request redirect location https://%[req.hdr(host),field(1,:)]${port}%[capture.req.uri] code 301 if !{ ssl_fc } !{ path_beg ${CHALLENGE_PATH} } { ${hostExpr},map(${HTTPS_MAP}) -m found }`);
    lines.push(`  http-request redirect location https://%[req.hdr(host),field(1,:)]${port}%[capture.req.uri] code 301 if !{ ssl_fc } !{ path_beg ${CHALLENGE_PATH} } ${noExact} { var(${WILDCARD_VAR}),map(${HTTPS_MAP}) -m found }`);
  }
  if (tls?.acmeUpstream) lines.push(`  use_backend ${ACME_BACKEND} if { path_beg ${CHALLENGE_PATH} }`);
  // a custom domain routes as the service host it is an alias of
  lines.push(`  use_backend %[${hostExpr},map(${DOMAINS_MAP}),map(hosts.map)] if { ${hostExpr},map(${DOMAINS_MAP}) -m found }`);
  lines.push(`  use_backend %[var(${WILDCARD_VAR}),map(${DOMAINS_MAP}),map(hosts.map)] if { var(${WILDCARD_VAR}),map(${DOMAINS_MAP}) -m found }`);
  return lines;
}

/** the backend forwarding ACME HTTP-01 challenges to berth */
export function acmeBackendLines(tls: TlsListen | undefined): string[] {
  if (!tls?.acmeUpstream) return [];
  return [`backend ${ACME_BACKEND}`, `  server berth ${tls.acmeUpstream}`, ''];
}

/** whether a running configuration has the TLS, alias and challenge lines `tls` asks for (the challenge server's address aside: it changes at run time) */
export function tlsConfigCurrent(config: string, listen: string, tls: TlsListen | undefined): boolean {
  const lines = config.split('\n');
  return [...frontendTlsLines(listen, tls), ...acmeBackendLines(tls).filter((l) => !l.startsWith('  server '))]
    .filter((l) => l !== '').every((l) => lines.includes(l));
}

/** the TLS files a configuration refers to exist (empty at first; the runtime edits keep them current) */
export function ensureTlsFiles(dir: string): void {
  mkdirSync(join(dir, CERT_DIR), { recursive: true, mode: 0o700 });
  for (const f of [DOMAINS_MAP, HTTPS_MAP, CERT_LIST]) if (!existsSync(join(dir, f))) writeFileSync(join(dir, f), '');
}

/** the file a host's certificate is kept in (relative to the ingress dir, as HAProxy names it) */
const certFile = (host: string): string => `${CERT_DIR}/${host.replace(/^\*\./, '_wildcard.')}.pem`;

/** a map file's entries (key → value) */
function readMap(dir: string, file: string): Map<string, string> {
  const text = existsSync(join(dir, file)) ? readFileSync(join(dir, file), 'utf8') : '';
  return new Map(text.split('\n').filter(Boolean).map((l) => { const [k, v] = l.split(' '); return [k!, v ?? '']; }));
}

function writeMap(dir: string, file: string, entries: Map<string, string>): void {
  writeFileAtomic(join(dir, file), [...entries].map(([k, v]) => `${k} ${v}\n`).join(''));
}

type Call = (command: string) => Promise<string>;

async function must(call: Call, command: string, ok: RegExp): Promise<string> {
  const out = (await call(command)).trim();
  if (!ok.test(out)) throw new Error(`ingress: HAProxy refused "${command.split('\n')[0]}": ${out.split('\n').slice(0, 2).join(' ')}`);
  return out;
}

const HOST = /^(\*\.)?[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$/;
function checkHost(host: string): string {
  if (!HOST.test(host)) throw new Error(`ingress: "${host}" is not a host name`);
  return host;
}

/** the runtime edits of domains and certificates over one proxy's runtime API and files */
export function tlsEditor(dir: string, call: Call) {
  async function setMapEntry(file: string, key: string, value: string | null): Promise<void> {
    const entries = readMap(dir, file);
    const live = await call(`get map ${file} ${key}`);
    const present = /\bfound=yes\b/.test(live);
    if (value === null) {
      if (present) await must(call, `del map ${file} ${key}`, /^$/);
      entries.delete(key);
    } else {
      await must(call, `${present ? 'set' : 'add'} map ${file} ${key} ${value}`, /^$/);
      entries.set(key, value);
    }
    writeMap(dir, file, entries);
  }

  async function listed(): Promise<Set<string>> {
    const out = await call(`show ssl crt-list ${CERT_LIST}`);
    return new Set(out.split('\n').map((l) => l.trim().split(' ')[0]!).filter((l) => l !== '' && !l.startsWith('#')));
  }

  return {
    /** route `domain` as `target` (a service's own host); `https`: its certificate is live and HTTP redirects */
    async setDomain(domain: string, target: string, https: boolean): Promise<void> {
      await setMapEntry(DOMAINS_MAP, checkHost(domain), checkHost(target));
      await setMapEntry(HTTPS_MAP, domain, https ? '1' : null);
    },
    async setHttps(host: string, on: boolean): Promise<void> {
      await setMapEntry(HTTPS_MAP, checkHost(host), on ? '1' : null);
    },
    async removeDomain(domain: string): Promise<void> {
      await setMapEntry(DOMAINS_MAP, checkHost(domain), null);
      await setMapEntry(HTTPS_MAP, domain, null);
    },
    /** install or replace the certificate served for `host`; open connections keep the one they have */
    async setCertificate(host: string, chainPem: string, keyPem: string): Promise<void> {
      const file = certFile(checkHost(host));
      const pem = `${chainPem.trim()}\n${keyPem.trim()}\n`;
      const known = /^Filename: /m.test(await call(`show ssl cert ${file}`));
      if (!known) await must(call, `new ssl cert ${file}`, /New empty certificate store/);
      await must(call, `set ssl cert ${file} <<\n${pem}`, /Transaction (created|updated)/);
      await must(call, `commit ssl cert ${file}`, /Success!/);
      if (!(await listed()).has(file)) await must(call, `add ssl crt-list ${CERT_LIST} ${file}`, /Success!/);
      writeFileAtomic(join(dir, file), pem, 0o600);
      const list = readFileSync(join(dir, CERT_LIST), 'utf8').split('\n').filter(Boolean);
      if (!list.includes(file)) writeFileAtomic(join(dir, CERT_LIST), [...list, file].map((l) => `${l}\n`).join(''));
    },
    async removeCertificate(host: string): Promise<void> {
      const file = certFile(checkHost(host));
      if ((await listed()).has(file)) await must(call, `del ssl crt-list ${CERT_LIST} ${file}`, /Success!/);
      if (/^Filename: /m.test(await call(`show ssl cert ${file}`))) await must(call, `del ssl cert ${file}`, /deleted|Success/);
      const list = readFileSync(join(dir, CERT_LIST), 'utf8').split('\n').filter((l) => l !== '' && l !== file);
      writeFileAtomic(join(dir, CERT_LIST), list.map((l) => `${l}\n`).join(''));
      rmSync(join(dir, file), { force: true });
    },
    /** ACME challenges go to `upstream` (host:port of berth's API), changed at run time */
    async pointAcme(upstream: string): Promise<void> {
      const at = upstream.lastIndexOf(':');
      const host = upstream.slice(0, at).replace(/^\[|\]$/g, '');
      await must(call, `set server ${ACME_BACKEND}/berth addr ${host} port ${upstream.slice(at + 1)}`, /^$|changed from|no need to change/i);
    },
    /** the domains routed now, with their targets */
    domains: (): Map<string, string> => readMap(dir, DOMAINS_MAP),
  };
}
