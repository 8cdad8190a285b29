// An authoritative DNS server on loopback for DNS-01 tests: Debian's Knot DNS (`knotd`, package
// `knot`), on a free port, serving zone `shop.test` (every name, the apex and `*.shop.test`,
// answers 127.0.0.1) and accepting RFC 2136 updates of TXT records signed with a TSIG key made
// here (hmac-sha256, and a second hmac-sha512 key), plus zone `locked.test`, where the keys may
// update A records only. Pebble's DNS can be pointed at it, so the CA reads the DNS-01 TXT records berth
// writes there.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Resolver } from 'node:dns/promises';
import { freeLoopbackPort } from '../../src/lib/processes.ts';
import { eventually } from './harness.ts';

export interface TestKey { name: string; secret: string; algorithm: 'hmac-sha256' | 'hmac-sha512' }

export interface DnsServer {
  /** host:port (UDP and TCP) */
  address: string;
  host: string;
  port: number;
  /** the zone updates are accepted for */
  zone: string;
  /** a zone the keys may not update */
  lockedZone: string;
  key: TestKey;
  key512: TestKey;
  /** the TXT strings served for `name` now (asked over plain DNS, unsigned) */
  txt(name: string): Promise<string[]>;
  output(): string;
  close(): Promise<void>;
}

export const hasKnot = (): boolean => {
  try { execFileSync('sh', ['-c', 'command -v knotd || test -x /usr/sbin/knotd'], { stdio: 'ignore' }); return true; } catch { return false; }
};
const knotd = (): string => {
  try { return execFileSync('sh', ['-c', 'command -v knotd'], { encoding: 'utf8' }).trim(); } catch { return '/usr/sbin/knotd'; }
};

const zoneFile = (zone: string) => `$ORIGIN ${zone}.
$TTL 60
@ SOA ns.${zone}. hostmaster.${zone}. 1 3600 600 86400 60
@ NS ns.${zone}.
ns A 127.0.0.1
@ A 127.0.0.1
* A 127.0.0.1
`;

export async function startDnsServer(): Promise<DnsServer> {
  const dir = mkdtempSync(join(tmpdir(), 'berth-knot-'));
  const port = await freeLoopbackPort();
  mkdirSync(join(dir, 'db'));
  const key: TestKey = { name: 'berth-acme', secret: randomBytes(32).toString('base64'), algorithm: 'hmac-sha256' };
  const key512: TestKey = { name: 'berth-acme-512', secret: randomBytes(64).toString('base64'), algorithm: 'hmac-sha512' };
  writeFileSync(join(dir, 'shop.test.zone'), zoneFile('shop.test'));
  writeFileSync(join(dir, 'locked.test.zone'), zoneFile('locked.test'));
  writeFileSync(join(dir, 'knot.conf'), `server:
    rundir: "${dir}"
    listen: 127.0.0.1@${port}
    udp-workers: 1
    tcp-workers: 1
    background-workers: 1
database:
    storage: "${dir}/db"
log:
  - target: stderr
    any: info
key:
  - id: ${key.name}
    algorithm: ${key.algorithm}
    secret: ${key.secret}
  - id: ${key512.name}
    algorithm: ${key512.algorithm}
    secret: ${key512.secret}
acl:
  - id: acme-txt
    key: [${key.name}, ${key512.name}]
    action: update
    update-type: TXT
  - id: a-only
    key: [${key.name}, ${key512.name}]
    action: update
    update-type: A
template:
  - id: default
    storage: "${dir}"
    zonefile-sync: -1
    zonefile-load: whole
    journal-content: changes
zone:
  - domain: shop.test
    file: shop.test.zone
    acl: acme-txt
  - domain: locked.test
    file: locked.test.zone
    acl: a-only
`);
  let out = '';
  const child = spawn(knotd(), ['-c', join(dir, 'knot.conf')], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { out += d; });
  const resolver = new Resolver({ timeout: 1000, tries: 1 });
  resolver.setServers([`127.0.0.1:${port}`]);
  await eventually(async () => {
    if (child.exitCode !== null) throw new Error(`knotd exited: ${out}`);
    return (await resolver.resolve4('www.shop.test').catch((): string[] => [])).includes('127.0.0.1');
  }, 20_000, 100).catch((err) => { throw new Error(`knotd did not start: ${out}\n${err}`); });
  return {
    address: `127.0.0.1:${port}`, host: '127.0.0.1', port, zone: 'shop.test', lockedZone: 'locked.test', key, key512,
    txt: async (name) => (await resolver.resolveTxt(name).catch(() => [])).map((chunks) => chunks.join('')),
    output: () => out,
    async close() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
