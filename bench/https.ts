// `npm run bench:https`: custom domains' HTTPS (issue 38), on Let's Encrypt's test CA (pebble) on
// loopback. (1) Time from a domain added (its DNS already answering) to its certificate serving,
// against acme-client ordering the same certificate straight from a second pebble with the token
// served by a bare HTTP server, same run: the difference is berth's own share (its DNS check,
// the task hand-off, storing, installing through HAProxy's runtime API). (2) HTTPS requests per
// second through berth's ingress ÷ the same HAProxy binary configured by hand with the same
// certificate and the same upstream, same run, interleaved rounds (target ≥ 0.9). Needs Docker
// (BERTH_TEST_DOCKER_HOST or DOCKER_HOST), haproxy, pebble; BENCH_ROUNDS (5), BENCH_SECONDS (5).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as acme from 'acme-client';
import { loadDriverInternals } from '../src/engine/index.ts';
import { busyboxImage, testDocker } from '../test/support/docker.ts';
import { startEngineBerth } from '../test/support/engine-berth.ts';
import { startPebble } from '../test/support/pebble.ts';
import { freePort } from '../test/support/processes.ts';
import { median } from './measure.ts';

const { buildImage } = await loadDriverInternals();
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONCURRENCY = 16;
const IMAGE = 'berth-bench/hello:1';
const log = (line: string) => process.stderr.write(`[bench:https] ${line}\n`);

async function until<T>(fn: () => Promise<T | null>, limitMs = 120_000): Promise<T> {
  const end = Date.now() + limitMs;
  for (;;) {
    const v = await fn().catch(() => null);
    if (v !== null) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** requests per second over keep-alive HTTPS connections to 127.0.0.1:port with SNI `host` */
async function throughput(port: number, host: string, ca: string): Promise<number> {
  const agent = new https.Agent({ keepAlive: true, maxSockets: CONCURRENCY, ca, servername: host });
  const end = Date.now() + SECONDS * 1000;
  let ok = 0;
  const worker = async () => {
    while (Date.now() < end) {
      await new Promise<void>((resolve, reject) => {
        https.get({ host: '127.0.0.1', port, path: '/', headers: { host }, agent, servername: host }, (res) => {
          res.resume();
          res.on('end', () => { if (res.statusCode === 200) ok++; resolve(); });
        }).on('error', reject);
      });
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  agent.destroy();
  return ok / SECONDS;
}

const found = await testDocker();
if (!found) throw new Error('no Docker daemon answers (BERTH_TEST_DOCKER_HOST or DOCKER_HOST)');
const base = await busyboxImage(found.docker);
const dir = await mkdtemp(join(tmpdir(), 'berth-bench-https-'));
await writeFile(join(dir, 'Dockerfile'), `FROM ${base}\nCMD ["sh", "-c", "mkdir -p /w && echo ok > /w/index.html && exec httpd -f -p 3000 -h /w"]\n`);
await buildImage(found.docker, { contextDir: dir, dockerfilePath: null, tag: IMAGE, buildArgs: {}, labels: { 'berth-test': 'bench' } }, async () => {}, AbortSignal.timeout(60_000));

const ingressPort = await freePort();
const httpsPort = await freePort();
const pebble = await startPebble({ httpPort: ingressPort });
const berth = await startEngineBerth(found.host, {
  LOG_LEVEL: 'warn', INGRESS_PORT: String(ingressPort), INGRESS_HTTPS_PORT: String(httpsPort), ACME_DIRECTORY_URL: pebble.directoryUrl,
  ACME_CA_BUNDLE: pebble.caBundle, DNS_RESOLVERS: pebble.dns, INGRESS_PUBLIC_ADDRESSES: '127.0.0.1',
});
const root = await pebble.root();
const org = (await berth.api('GET', '/organization')).body.results[0].id;
const project = (await berth.api('POST', `/organization/${org}/project`, { name: `bench-https-${Date.now()}` })).body;
const envId = (await berth.api('POST', `/project/${project.id}/environment`, { name: 'bench', mode: 'PRODUCTION' })).body.id;
const registry = (await berth.api('POST', `/organization/${org}/containerRegistry`, { name: 'hub', kind: 'DOCKER_HUB', url: 'https://docker.io' })).body;
const svc = (await berth.api('POST', `/environment/${envId}/container`, {
  name: 'hello', registry_id: registry.id, image_name: 'berth-bench/hello', tag: '1', ports: [{ internal_port: 3000, publicly_accessible: true }], cpu: 500, memory: 64,
})).body;
await berth.settle((await berth.api('POST', `/container/${svc.id}/deploy`)).body.id);

// the raw side: a second pebble whose HTTP-01 fetches reach a bare server holding the tokens
const tokens = new Map<string, string>();
const rawHttp = http.createServer((req, res) => res.end(tokens.get((req.url ?? '').split('/').pop() ?? '') ?? ''));
const rawPort = await freePort();
await new Promise<void>((r) => rawHttp.listen(rawPort, '127.0.0.1', r));
const rawPebble = await startPebble({ httpPort: rawPort });
acme.axios.defaults.httpsAgent = new https.Agent({ ca: readFileSync(rawPebble.caBundle) });
const rawClient = new acme.Client({ directoryUrl: rawPebble.directoryUrl, accountKey: await acme.crypto.createPrivateKey() });
const rawOrder = async (host: string) => {
  const [, csr] = await acme.crypto.createCsr({ commonName: host, altNames: [host] });
  return rawClient.auto({
    csr, termsOfServiceAgreed: true, challengePriority: ['http-01'], skipChallengeVerification: true,
    challengeCreateFn: async (_a, c, key) => { tokens.set(c.token, key); },
    challengeRemoveFn: async (_a, c) => { tokens.delete(c.token); },
  });
};
const handshake = (host: string) => new Promise<boolean>((resolve) => {
  const s = https.get({ host: '127.0.0.1', port: httpsPort, path: '/', servername: host, headers: { host }, ca: root, agent: false }, (res) => { res.resume(); resolve(res.statusCode === 200); });
  s.on('error', () => resolve(false));
});

const berthMs: number[] = [];
const rawMs: number[] = [];
for (let round = 1; round <= ROUNDS; round++) {
  const host = `r${round}-${Date.now()}.bench.test`;
  const t0 = performance.now();
  const made = (await berth.api('POST', `/container/${svc.id}/customDomain`, { domain: host })).body;
  await until(async () => ((await handshake(host)) ? true : null));
  berthMs.push(performance.now() - t0);
  const t1 = performance.now();
  await rawOrder(`raw-${host}`);
  rawMs.push(performance.now() - t1);
  log(`round ${round}: berth ${berthMs.at(-1)!.toFixed(0)} ms (domain ${made.id}), acme-client straight ${rawMs.at(-1)!.toFixed(0)} ms`);
}

// the hand-configured HAProxy: the last domain's certificate (from berth's store) and the container's published port
const lastHost = (await berth.api('GET', `/container/${svc.id}/customDomain`)).body.results.at(-1).domain as string;
const haDir = await mkdtemp(join(tmpdir(), 'berth-bench-haproxy-'));
const lastCert = await readIngressCert(berth.env.DATA_DIR!, lastHost);
const upstream = await until(async () => {
  const list = await found.docker.listContainers({ filters: { label: [`berth.service_id=${svc.id}`] } });
  const port = list[0]?.Ports.find((p) => p.PrivatePort === 3000 && p.PublicPort)?.PublicPort;
  return port ? `127.0.0.1:${port}` : null;
});
const handPort = await freePort();
await writeFile(join(haDir, 'site.pem'), lastCert, { mode: 0o600 });
await writeFile(join(haDir, 'haproxy.cfg'), [
  'global', '  maxconn 4096', 'defaults', '  mode http', '  timeout connect 5s', '  timeout client 1h', '  timeout server 1h', '  option forwardfor',
  'frontend hand', `  bind 127.0.0.1:${handPort} ssl crt ${join(haDir, 'site.pem')} alpn http/1.1`, '  default_backend app',
  'backend app', `  server app ${upstream}`, '',
].join('\n'));
const hand = spawn(process.env.HAPROXY_BIN ?? 'haproxy', ['-f', join(haDir, 'haproxy.cfg')], { stdio: 'ignore' });
await until(async () => ((await throughputProbe(handPort, lastHost)) ? true : null), 10_000);

const berthRps: number[] = [];
const handRps: number[] = [];
for (let round = 1; round <= ROUNDS; round++) {
  const sides = round % 2 === 1 ? ['berth', 'hand'] : ['hand', 'berth'];
  for (const side of sides) (side === 'berth' ? berthRps : handRps).push(await throughput(side === 'berth' ? httpsPort : handPort, lastHost, root));
  log(`round ${round}: berth's ingress ${berthRps.at(-1)!.toFixed(0)} req/s, HAProxy by hand ${handRps.at(-1)!.toFixed(0)} req/s`);
}
hand.kill('SIGTERM');
await berth.api('DELETE', `/environment/${envId}`);
await berth.close();
await pebble.close();
await rawPebble.close();
rawHttp.close();
await rm(dir, { recursive: true, force: true });
await rm(haDir, { recursive: true, force: true });

const b = median(berthMs);
const r = median(rawMs);
process.stdout.write([
  '| custom domain, DNS answering → certificate serving | median ms |',
  '|---|---|',
  `| berth (POST customDomain → first HTTPS 200 with the new certificate) | ${b.toFixed(0)} |`,
  `| acme-client ordering straight from pebble (token on a bare server) | ${r.toFixed(0)} |`,
  `| berth's own share | ${(b - r).toFixed(0)} ms |`,
  '',
  `| HTTPS through the ingress, ${CONCURRENCY} keep-alive clients, ${SECONDS} s rounds | median req/s |`,
  '|---|---|',
  `| berth's ingress (SNI, crt-list, alias and redirect rules) | ${median(berthRps).toFixed(0)} |`,
  `| the same HAProxy configured by hand, same certificate and upstream | ${median(handRps).toFixed(0)} |`,
  `| ratio (target ≥ 0.9) | ${(median(berthRps) / median(handRps)).toFixed(2)} |`,
  '',
].join('\n'));

/** the PEM (chain and key) berth's ingress holds for `host` */
async function readIngressCert(dataDir: string, host: string): Promise<string> {
  return readFile(join(dataDir, 'ingress', 'certs', `${host}.pem`), 'utf8');
}

async function throughputProbe(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    https.get({ host: '127.0.0.1', port, path: '/', servername: host, headers: { host }, ca: root, agent: false }, (res) => { res.resume(); resolve(res.statusCode === 200); })
      .on('error', () => resolve(false));
  });
}
