// Custom domains with automatic HTTPS on the Docker engine (issue 38), against Let's Encrypt's
// test CA on loopback (pebble, which really resolves the domain through pebble-challtestsrv and
// fetches the HTTP-01 token from berth's ingress): a client trusting pebble's root gets the
// application at https://<domain>/ and HTTP redirects; a renewal (forced by the renewal
// threshold) leaves a WebSocket open through the ingress untouched while new connections get the
// new certificate; a domain resolving elsewhere waits with both addresses named; a refused order
// fails with the CA's message; deleting the domain removes its route and certificate.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { NO_DOCKER, startGitServer, testDocker, type GitServer } from '../support/docker.ts';
import { removeEnvironment, startEngineBerth, viaIngress, webhookReceiver, type EngineBerth } from '../support/engine-berth.ts';
import { eventually } from '../support/harness.ts';
import { httpGet, httpsGet, servedCertificate } from '../support/https-client.ts';
import { hasPebble, startPebble, type Pebble } from '../support/pebble.ts';
import { freePort } from '../support/processes.ts';
import { openWebSocket, received, wsAppImage, type Stream } from '../support/ws-app.ts';

const found = await testDocker();
const skip = !found ? NO_DOCKER : !hasPebble() && !process.env.BERTH_REQUIRE_DOCKER ? 'pebble is not installed (apt-get install pebble)' : false;

describe('docker engine: custom domains with HTTPS from an ACME CA', { skip, timeout: 900_000 }, () => {
  let berth: EngineBerth;
  let pebble: Pebble;
  let git: GitServer;
  let envId: string;
  let appId: string;
  let root: string;
  let httpsPort: number;
  let hooks: Awaited<ReturnType<typeof webhookReceiver>>;
  const streams: Stream[] = [];
  const docker = found?.docker!;

  const addDomain = async (domain: string, body: Record<string, unknown> = {}) => {
    const r = await berth.api('POST', `/application/${appId}/customDomain`, { domain, ...body });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return r.body as { id: string; domain: string };
  };
  const statusOf = async (id: string) => (await berth.api('GET', `/application/${appId}/customDomain/${id}/status`)).body;
  const until = (id: string, wanted: (d: any) => boolean, timeoutMs = 120_000) => eventually(async () => {
    const d = await statusOf(id);
    return wanted(d) ? d : null;
  }, timeoutMs, 300);

  before(async () => {
    const ingressPort = await freePort();
    httpsPort = await freePort();
    // 5 % of nonces rejected, as Let's Encrypt may: berth's ACME client retries badNonce
    pebble = await startPebble({ httpPort: ingressPort, nonceReject: 5 });
    const image = await wsAppImage(docker);
    git = await startGitServer();
    await git.createRepo('ws', { Dockerfile: `FROM ${image}\n` });
    berth = await startEngineBerth(found!.host, {
      INGRESS_PORT: String(ingressPort), INGRESS_HTTPS_PORT: String(httpsPort), ACME_DIRECTORY_URL: pebble.directoryUrl,
      ACME_CA_BUNDLE: pebble.caBundle, ACME_EMAIL: 'ops@shop.test', DNS_RESOLVERS: pebble.dns, INGRESS_PUBLIC_ADDRESSES: '127.0.0.1',
    });
    root = await pebble.root();
    const org = (await berth.api('GET', '/organization')).body.results[0].id;
    hooks = await webhookReceiver();
    const hook = await berth.api('POST', `/organization/${org}/webhook`, { target_url: hooks.url, kind: 'STANDARD', events: ['CUSTOM_DOMAIN_STATUS_CHANGED'] });
    assert.equal(hook.status, 201, JSON.stringify(hook.body));
    const project = (await berth.api('POST', `/organization/${org}/project`, { name: `https-${Date.now()}` })).body;
    envId = (await berth.api('POST', `/project/${project.id}/environment`, { name: 'prod', mode: 'PRODUCTION' })).body.id;
    await berth.api('POST', `/environment/${envId}/environmentVariable`, { key: 'GREETING', value: 'shop' });
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
    for (const s of streams) s.close();
    await removeEnvironment(berth, docker, envId);
    await berth?.close();
    await git?.close();
    await pebble?.close();
    await hooks?.close();
  });

  test('a domain pointing at berth gets a certificate: the app answers at https://<domain>/, HTTP redirects, challenges do not', async () => {
    const started = Date.now();
    const made = await addDomain('www.shop.test');
    const active = await until(made.id, (d) => d.status === 'ACTIVE' || d.status === 'FAILED');
    assert.equal(active.status, 'ACTIVE', `${active.message}\n${pebble.output().slice(-2000)}`);
    assert.ok(active.certificate_expires_at, 'the expiry is shown');
    // each status change is a line in the service's log
    const lines = (await berth.api('GET', `/application/${appId}/log?tail=1000`)).body.results.map((l: any) => l.message as string);
    for (const status of ['CERTIFICATE_PENDING', 'ACTIVE']) assert.ok(lines.some((l: string) => l.startsWith(`Custom domain www.shop.test: ${status}`)), `${status} in ${lines.slice(-10).join(' | ')}`);
    // and an organization webhook event (CUSTOM_DOMAIN_STATUS_CHANGED) with the move
    const event = await eventually(async () => hooks.bodies.find((b) => b.event_type === 'CUSTOM_DOMAIN_STATUS_CHANGED'
      && b.payload.domain === 'www.shop.test' && b.payload.status === 'ACTIVE'), 30_000, 200);
    assert.equal(event.payload.previous_status, 'CERTIFICATE_PENDING');
    assert.equal(event.payload.custom_domain_id, made.id);
    assert.equal(event.payload.application_id, appId);
    assert.equal(event.payload.certificate_expires_at, active.certificate_expires_at);
    console.log(`# certificate serving ${Date.now() - started} ms after the domain was added (DNS already answering)`);
    const page = await httpsGet(httpsPort, 'www.shop.test', root);
    assert.equal(page.status, 200);
    assert.equal(page.body.trim(), 'shop');
    const plain = await viaIngress(berth.ingressPort, 'www.shop.test', '/some/page?x=1');
    assert.equal(plain.status, 301);
    const redirect = (await httpGet(berth.ingressPort, 'www.shop.test', '/some/page?x=1')).location;
    assert.equal(redirect, `https://www.shop.test:${httpsPort}/some/page?x=1`);
    const challenge = await viaIngress(berth.ingressPort, 'www.shop.test', '/.well-known/acme-challenge/unknown-token');
    assert.equal(challenge.status, 404, 'a challenge path is answered by berth, never redirected');
    // no certificate for a host berth has none for: the handshake is refused, never a wrong certificate
    assert.equal(await servedCertificate(httpsPort, 'nobody.shop.test', root), null);
  });

  test('a renewal installs the new certificate without cutting a WebSocket open through the ingress', { timeout: 300_000 }, async () => {
    const list = (await berth.api('GET', `/application/${appId}/customDomain`)).body.results;
    const www = list.find((d: any) => d.domain === 'www.shop.test');
    const before = await servedCertificate(httpsPort, 'www.shop.test', root);
    assert.ok(before);
    const ws = openWebSocket(httpsPort, 'www.shop.test', { ca: root });
    streams.push(ws);
    await received(ws, 2);
    // every certificate is due once the whole lifetime counts as the renewal window
    await berth.stop();
    berth.env.CERTIFICATE_RENEWAL_FRACTION = '1';
    await berth.restart();
    const renewed = await eventually(async () => {
      const now = await servedCertificate(httpsPort, 'www.shop.test', root);
      return now && now.serialNumber !== before.serialNumber ? now : null;
    }, 150_000, 1000).catch(async (err) => { throw new Error(`no renewal: ${JSON.stringify(await statusOf(www.id))}\n${berth.process.output().slice(-3000)}\n${err}`); });
    assert.notEqual(renewed.serialNumber, before.serialNumber);
    const seen = ws.messages.length;
    await received(ws, seen + 2);
    assert.equal(ws.closedAt, null, 'the WebSocket opened before the renewal is still open');
    assert.equal((await statusOf(www.id)).status, 'ACTIVE');
    await berth.stop();
    berth.env.CERTIFICATE_RENEWAL_FRACTION = '0.33';
    await berth.restart();
  });

  test('a domain resolving elsewhere waits, naming both addresses and the record to create', async () => {
    await pebble.setA('away.shop.test', ['192.0.2.44']);
    const made = await addDomain('away.shop.test');
    const waiting = await until(made.id, (d) => d.checked_at !== null);
    assert.equal(waiting.status, 'VALIDATION_PENDING');
    assert.match(waiting.message, /192\.0\.2\.44/);
    assert.match(waiting.message, /127\.0\.0\.1/);
    assert.match(waiting.message, /CNAME/);
    const check = (await berth.api('GET', `/application/${appId}/checkCustomDomain`)).body.results.find((r: any) => r.domain_name === 'away.shop.test');
    assert.equal(check.status, 'DOMAIN_LINKED_TO_WRONG_HOST');
  });

  test("a refused order fails with the CA's own words and a time to try again", async () => {
    // behind a "CDN" answering at an address where nothing listens: berth's DNS check passes, the CA cannot fetch the token
    await pebble.setA('refused.shop.test', ['127.0.0.2']);
    const made = await addDomain('refused.shop.test', { use_cdn: true });
    const failed = await until(made.id, (d) => d.status === 'FAILED' || d.status === 'ACTIVE', 150_000);
    assert.equal(failed.status, 'FAILED', failed.message);
    assert.match(failed.message, /the CA refused: .*(connection|connect|refused)/i);
    assert.ok(failed.retry_at && new Date(failed.retry_at).getTime() > Date.now(), 'berth says when it tries again');
  });

  test('deleting a domain removes its route and its certificate', async () => {
    const www = (await berth.api('GET', `/application/${appId}/customDomain`)).body.results.find((d: any) => d.domain === 'www.shop.test');
    const r = await berth.api('DELETE', `/application/${appId}/customDomain/${www.id}`);
    assert.equal(r.status, 204);
    assert.equal(await servedCertificate(httpsPort, 'www.shop.test', root), null);
    assert.equal((await viaIngress(berth.ingressPort, 'www.shop.test')).status, 404);
  });
});
