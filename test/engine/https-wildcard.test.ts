// A wildcard custom domain on the Docker engine (issue 38, decision 0349): with the RFC 2136
// DNS-01 provider configured (ACME_DNS01_RFC2136_*), `*.shop.test` gets a certificate from
// Let's Encrypt's test CA on loopback (pebble), which reads the DNS-01 TXT record berth writes
// with a TSIG-signed update into an authoritative server (Knot DNS, test/support/dns-server.ts,
// also the resolver of pebble and of berth's DNS check); https://anything.shop.test/ is then the
// application, HTTP redirects, the TXT record is gone again. Without the provider a wildcard is
// a 400 saying so, while the certificate already issued keeps serving.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { NO_DOCKER, startGitServer, testDocker, type GitServer } from '../support/docker.ts';
import { hasKnot, startDnsServer, type DnsServer } from '../support/dns-server.ts';
import { removeEnvironment, startEngineBerth, type EngineBerth } from '../support/engine-berth.ts';
import { eventually } from '../support/harness.ts';
import { httpGet, httpsGet, servedCertificate } from '../support/https-client.ts';
import { hasPebble, startPebble, type Pebble } from '../support/pebble.ts';
import { freePort } from '../support/processes.ts';
import { wsAppImage } from '../support/ws-app.ts';

const found = await testDocker();
const skip = !found ? NO_DOCKER
  : !hasPebble() && !process.env.BERTH_REQUIRE_DOCKER ? 'pebble is not installed (apt-get install pebble)'
    : !hasKnot() && !process.env.BERTH_REQUIRE_DOCKER ? 'knotd is not installed (apt-get install knot)' : false;

const DNS01_VARS = ['ACME_DNS01_RFC2136_SERVER', 'ACME_DNS01_RFC2136_KEY_NAME', 'ACME_DNS01_RFC2136_KEY_SECRET', 'ACME_DNS01_RFC2136_KEY_ALGORITHM'];



describe('docker engine: a wildcard custom domain gets its certificate by DNS-01 (RFC 2136 with TSIG)', { skip, timeout: 900_000 }, () => {
  let berth: EngineBerth;
  let dns: DnsServer;
  let pebble: Pebble;
  let git: GitServer;
  let envId: string;
  let appId: string;
  let root: string;
  let httpsPort: number;
  const docker = found?.docker!;

  before(async () => {
    const ingressPort = await freePort();
    httpsPort = await freePort();
    dns = await startDnsServer();
    pebble = await startPebble({ httpPort: ingressPort, dnsServer: dns.address });
    const image = await wsAppImage(docker);
    git = await startGitServer();
    await git.createRepo('ws', { Dockerfile: `FROM ${image}\n` });
    berth = await startEngineBerth(found!.host, {
      INGRESS_PORT: String(ingressPort), INGRESS_HTTPS_PORT: String(httpsPort), ACME_DIRECTORY_URL: pebble.directoryUrl,
      ACME_CA_BUNDLE: pebble.caBundle, ACME_EMAIL: 'ops@shop.test', DNS_RESOLVERS: dns.address, INGRESS_PUBLIC_ADDRESSES: '127.0.0.1',
      ACME_DNS01_RFC2136_SERVER: dns.address, ACME_DNS01_RFC2136_KEY_NAME: dns.key.name, ACME_DNS01_RFC2136_KEY_SECRET: dns.key.secret,
      ACME_DNS01_RFC2136_KEY_ALGORITHM: dns.key.algorithm,
    });
    root = await pebble.root();
    const org = (await berth.api('GET', '/organization')).body.results[0].id;
    const project = (await berth.api('POST', `/organization/${org}/project`, { name: `https-wild-${Date.now()}` })).body;
    envId = (await berth.api('POST', `/project/${project.id}/environment`, { name: 'prod', mode: 'PRODUCTION' })).body.id;
    await berth.api('POST', `/environment/${envId}/environmentVariable`, { key: 'GREETING', value: 'wildcard shop' });
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

  test('*.shop.test gets a certificate through DNS-01: https://anything.shop.test/ is the application, HTTP redirects', async () => {
    const started = Date.now();
    const r = await berth.api('POST', `/application/${appId}/customDomain`, { domain: '*.Shop.Test' });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.domain, '*.shop.test');
    const active = await eventually(async () => {
      const d = (await berth.api('GET', `/application/${appId}/customDomain/${r.body.id}/status`)).body;
      return d.status === 'ACTIVE' || d.status === 'FAILED' ? d : null;
    }, 180_000, 300).catch(async (err) => { throw new Error(`${err}\n${pebble.output().slice(-3000)}\n${dns.output().slice(-2000)}\n${berth.process.output().slice(-3000)}`); });
    assert.equal(active.status, 'ACTIVE', `${active.message}\n${pebble.output().slice(-3000)}\n${dns.output().slice(-2000)}`);
    console.log(`# wildcard certificate serving ${Date.now() - started} ms after the domain was added`);
    assert.match(pebble.output(), /dns-01/i, 'the CA validated by DNS-01');

    const cert = await servedCertificate(httpsPort, 'anything.shop.test', root);
    assert.ok(cert, 'a name under the wildcard gets the certificate');
    assert.match(cert.subjectaltname ?? '', /DNS:\*\.shop\.test/);
    for (const host of ['anything.shop.test', 'www.shop.test']) {
      const page = await httpsGet(httpsPort, host, root);
      assert.equal(page.status, 200, host);
      assert.equal(page.body.trim(), 'wildcard shop', host);
    }
    const plain = await httpGet(berth.ingressPort, 'other.shop.test', '/a?b=1');
    assert.equal(plain.status, 301);
    assert.equal(plain.location, `https://other.shop.test:${httpsPort}/a?b=1`);
    // one label only, as the certificate: a deeper name is no alias, and gets no certificate
    assert.equal(await servedCertificate(httpsPort, 'a.b.shop.test', root), null);
    // the challenge's TXT record was removed once the CA had validated
    assert.deepEqual(await dns.txt('_acme-challenge.shop.test'), []);
    const check = (await berth.api('GET', `/application/${appId}/checkCustomDomain`)).body.results.find((c: any) => c.domain_name === '*.shop.test');
    assert.equal(check.status, 'MATCHES_LOAD_BALANCER_HOST', JSON.stringify(check));
  });

  test('without a DNS-01 provider a wildcard is a 400 saying so; the certificate already issued keeps serving', async () => {
    await berth.stop();
    for (const v of DNS01_VARS) delete berth.env[v];
    await berth.restart();
    const r = await berth.api('POST', `/application/${appId}/customDomain`, { domain: '*.elsewhere.test' });
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.match(r.body.message, /wildcard \(\*\.elsewhere\.test\) can only get a certificate through a DNS-01 challenge, and no DNS-01 provider is configured/);
    const page = await eventually(async () => httpsGet(httpsPort, 'again.shop.test', root).catch(() => null), 30_000, 300);
    assert.equal(page.status, 200);
  });
});
