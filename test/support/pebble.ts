// Let's Encrypt's test CA on loopback for HTTPS tests (../shared/reference/tls.md): Debian's
// `pebble` (which really validates: it resolves the domain and fetches the HTTP-01 token from the
// port given as httpPort, berth's ingress) with its DNS pointed at `pebble-challtestsrv`, whose
// management API sets per-host answers (every other A query answers 127.0.0.1). Pebble's own
// listener has a self-signed certificate made here with openssl; clients of the directory trust
// it through ACME_CA_BUNDLE. The root that signs issued certificates is read from pebble's
// management port, for clients checking what berth's ingress serves.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'node:https';
import { freeLoopbackPort } from '../../src/lib/processes.ts';
import { eventually } from './harness.ts';

export interface Pebble {
  /** ACME_DIRECTORY_URL */
  directoryUrl: string;
  /** ACME_CA_BUNDLE: trusts pebble's own listener */
  caBundle: string;
  /** DNS_RESOLVERS: challtestsrv's DNS */
  dns: string;
  /** the PEM root issued certificates chain to */
  root(): Promise<string>;
  /** answer A queries for `host` with `addresses` (instead of 127.0.0.1) */
  setA(host: string, addresses: string[]): Promise<void>;
  clearA(host: string): Promise<void>;
  output(): string;
  close(): Promise<void>;
}

export const hasPebble = (): boolean => {
  try { execFileSync('sh', ['-c', 'command -v pebble && command -v pebble-challtestsrv'], { stdio: 'ignore' }); return true; } catch { return false; }
};

function spawnLogged(bin: string, args: string[], env: Record<string, string>, log: { text: string }): ChildProcess {
  const child = spawn(bin, args, { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (d) => { log.text += d; });
  child.stderr!.on('data', (d) => { log.text += d; });
  return child;
}

/**
 * pebble and challtestsrv on free loopback ports; `httpPort`: where pebble fetches HTTP-01 tokens (berth's ingress);
 * `dnsServer` (host:port): the DNS pebble resolves with instead of challtestsrv's (e.g. the authoritative server DNS-01 tests update)
 */
export async function startPebble(o: { httpPort: number; nonceReject?: number; dnsServer?: string }): Promise<Pebble> {
  const dir = mkdtempSync(join(tmpdir(), 'berth-pebble-'));
  const [dnsPort, mgmtDns, acmePort, mgmtAcme, tlsPort] = await Promise.all(Array.from({ length: 5 }, () => freeLoopbackPort()));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=localhost',
    '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
  writeFileSync(join(dir, 'pebble.json'), JSON.stringify({
    pebble: {
      listenAddress: `127.0.0.1:${acmePort}`, managementListenAddress: `127.0.0.1:${mgmtAcme}`,
      certificate: join(dir, 'cert.pem'), privateKey: join(dir, 'key.pem'),
      httpPort: o.httpPort, tlsPort, ocspResponderURL: '', externalAccountBindingRequired: false,
    },
  }));
  const log = { text: '' };
  const dns = spawnLogged('pebble-challtestsrv', ['-dns01', `127.0.0.1:${dnsPort}`, '-http01', '', '-https01', '', '-tlsalpn01', '',
    '-management', `127.0.0.1:${mgmtDns}`, '-defaultIPv4', '127.0.0.1', '-defaultIPv6', ''], {}, log);
  const ca = spawnLogged('pebble', ['-config', join(dir, 'pebble.json'), '-dnsserver', o.dnsServer ?? `127.0.0.1:${dnsPort}`],
    { PEBBLE_VA_NOSLEEP: '1', PEBBLE_WFE_NONCEREJECT: String(o.nonceReject ?? 0) }, log);
  const agent = new Agent({ ca: execFileSync('cat', [join(dir, 'cert.pem')]) });
  const get = (port: number, path: string) => new Promise<{ status: number; body: string }>((resolve, reject) => {
    request({ host: '127.0.0.1', port, path, agent, servername: 'localhost' }, (res) => {
      let body = '';
      res.on('data', (d) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    }).on('error', reject).end();
  });
  const manage = async (path: string, body: unknown) => {
    const res = await fetch(`http://127.0.0.1:${mgmtDns}${path}`, { method: 'POST', body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`challtestsrv ${path}: ${res.status} ${await res.text()}`);
  };
  await eventually(async () => (await get(acmePort, '/dir').catch(() => ({ status: 0 }))).status === 200, 20_000, 100)
    .catch((err) => { throw new Error(`pebble did not start: ${log.text}\n${err}`); });
  await eventually(async () => (await fetch(`http://127.0.0.1:${mgmtDns}/`, { method: 'POST' }).catch(() => null)) !== null, 20_000, 100);
  const fqdn = (h: string) => (h.endsWith('.') ? h : `${h}.`);
  return {
    directoryUrl: `https://127.0.0.1:${acmePort}/dir`,
    caBundle: join(dir, 'cert.pem'),
    dns: `127.0.0.1:${dnsPort}`,
    root: async () => (await get(mgmtAcme, '/roots/0')).body,
    setA: (host, addresses) => manage('/add-a', { host: fqdn(host), addresses }),
    clearA: (host) => manage('/clear-a', { host: fqdn(host) }),
    output: () => log.text,
    async close() {
      for (const child of [ca, dns]) if (child.exitCode === null) child.kill('SIGTERM');
    },
  };
}
