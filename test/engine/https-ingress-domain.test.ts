// The services' own URLs over HTTPS (issue 38: "when INGRESS_DOMAIN is a real domain, the default
// URLs get HTTPS the same way"), on the Docker engine: INGRESS_DOMAIN=shop.test with
// INGRESS_DOMAIN_HTTPS=on and the RFC 2136 DNS-01 provider (Knot DNS on loopback), so berth orders
// one wildcard certificate for *.shop.test from pebble; then the application's link is https, it
// answers there with that certificate, and HTTP to its host redirects. A restarted berth keeps
// serving it without ordering again.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import https from 'node:https';
import { NO_DOCKER, startGitServer, testDocker, type GitServer } from '../support/docker.ts';
import { hasKnot, startDnsServer, type DnsServer } from '../support/dns-server.ts';
import { removeEnvironment, startEngineBerth, type EngineBerth } from '../support/engine-berth.ts';
import { eventually } from '../support/harness.ts';
import { hasPebble, startPebble, type Pebble } from '../support/pebble.ts';
import { freePort } from '../support/processes.ts';
import { wsAppImage } from '../support/ws-app.ts';

const found = await testDocker();
const skip = !found ? NO_DOCKER
  : !hasPebble() && !process.env.BERTH_REQUIRE_DOCKER ? 'pebble is not installed (apt-get install pebble)'
    : !hasKnot() && !process.env.BERTH_REQUIRE_DOCKER ? 'knotd is not installed (apt-get install knot)' : false;

function get(url: URL, ca: string): Promise<{ status: number; body: string; location?: string; issuer?: string }> {
  return new Promise((resolve, reject) => {
    const secure = url.protocol === 'https:';
    const options = { host: '127.0.0.1', port: Number(url.port || (secure ? 443 : 80)), path: `${url.pathname}${url.search}`, headers: { host: url.hostname }, agent: false };
    const onResponse = (res: http.IncomingMessage) => {
      let body = '';
      res.on('data', (d) => { body += d; });
      res.on('end', () => resolve({
        status: res.statusCode ?? 0, body, location: res.headers.location,
        issuer: secure ? String((res.socket as import('node:tls').TLSSocket).getPeerCertificate().issuer?.CN) : undefined,
      }));
    };
    (secure ? https.get({ ...options, servername: url.hostname, ca }, onResponse) : http.get(options, onResponse)).on('error', reject);
  });
}

describe("docker engine: the services' own hosts get HTTPS through a wildcard certificate (INGRESS_DOMAIN_HTTPS)", { skip, timeout: 900_000 }, () => {
  let berth: EngineBerth;
  let dns: DnsServer;
  let pebble: Pebble;
  let git: GitServer;
  let envId: string;
  let appId: string;
  let root: string;
  let httpsPort: number;
  const docker = found?.docker!;
  const link = async () => (await berth.api('GET', `/application/${appId}/link`)).body.results.find((l: any) => l.is_default).url as string;

  before(async () => {
    const ingressPort = await freePort();
    httpsPort = await freePort();
    dns = await startDnsServer();
    pebble = await startPebble({ httpPort: ingressPort, dnsServer: dns.address });
    const image = await wsAppImage(docker);
    git = await startGitServer();
    await git.createRepo('ws', { Dockerfile: `FROM ${image}\n` });
    berth = await startEngineBerth(found!.host, {
      INGRESS_DOMAIN: dns.zone, INGRESS_DOMAIN_HTTPS: 'on',
      INGRESS_PORT: String(ingressPort), INGRESS_HTTPS_PORT: String(httpsPort), ACME_DIRECTORY_URL: pebble.directoryUrl,
      ACME_CA_BUNDLE: pebble.caBundle, DNS_RESOLVERS: dns.address, INGRESS_PUBLIC_ADDRESSES: '127.0.0.1',
      ACME_DNS01_RFC2136_SERVER: dns.address, ACME_DNS01_RFC2136_KEY_NAME: dns.key.name, ACME_DNS01_RFC2136_KEY_SECRET: dns.key.secret,
      ACME_DNS01_RFC2136_KEY_ALGORITHM: dns.key.algorithm,
    });
    root = await pebble.root();
    const org = (await berth.api('GET', '/organization')).body.results[0].id;
    const project = (await berth.api('POST', `/organization/${org}/project`, { name: `https-own-${Date.now()}` })).body;
    envId = (await berth.api('POST', `/project/${project.id}/environment`, { name: 'prod', mode: 'PRODUCTION' })).body.id;
    await berth.api('POST', `/environment/${envId}/environmentVariable`, { key: 'GREETING', value: 'own host' });
    const created = await berth.api('POST', `/environment/${envId}/application`, {
      name: 'shop', git_repository: { url: `${git.baseUrl}/ws.git`, branch: 'main' }, ports: [{ internal_port: 8080, publicly_accessible: true }], cpu: 250, memory: 128,
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    appId = created.body.id;
    const d = await berth.api('POST', `/application/${appId}/deploy`);
    const final = await berth.settle(d.body.id);
    assert.equal(final.status, 'DEPLOYED', final.message);
  }, { timeout: 600_000 });
  after(async () => {
    if (berth) await removeEnvironment(berth, docker, envId);
    await berth?.close();
    await git?.close();
    await pebble?.close();
    await dns?.close();
  });

  test('the link turns https once the wildcard certificate is held; the app answers there and HTTP redirects', { timeout: 240_000 }, async () => {
    // the certificate is ordered by the minute's visit (domains.visit), from berth's start on
    const url = await eventually(async () => {
      const u = await link();
      return u.startsWith('https://') ? u : null;
    }, 180_000, 500).catch(async (err) => { throw new Error(`${err}\n${pebble.output().slice(-3000)}\n${berth.process.output().slice(-3000)}`); });
    const target = new URL(url);
    assert.equal(target.port, String(httpsPort));
    assert.match(target.hostname, /\.shop\.test$/);
    const page = await get(target, root);
    assert.equal(page.status, 200);
    assert.equal(page.body.trim(), 'own host');
    assert.match(page.issuer ?? '', /Pebble/i);
    const plain = await get(new URL(`http://${target.hostname}:${berth.ingressPort}/x?y=1`), root);
    assert.equal(plain.status, 301);
    assert.equal(plain.location, `https://${target.hostname}:${httpsPort}/x?y=1`);
  });

  test('a restarted berth serves the same certificate without ordering again', async () => {
    const before = pebble.output().split('\n').filter((l) => /Issued certificate|issued/i.test(l)).length;
    assert.ok(before > 0, `pebble logged the issuance: ${pebble.output().slice(-1500)}`);
    await berth.stop();
    await berth.restart();
    const target = new URL(await link());
    assert.equal(target.protocol, 'https:');
    assert.equal((await get(target, root)).status, 200);
    assert.equal(pebble.output().split('\n').filter((l) => /Issued certificate|issued/i.test(l)).length, before);
  });
});
