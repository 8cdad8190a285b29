// A service's network.ingress.* advanced settings applied by the Docker engine's HAProxy ingress
// (issue 30, decision 0337), through a real berth on the real daemon: one application of three
// replicas that answer their host name, requested through the ingress from 127.0.0.1. Each family
// is edited with PUT advancedSettings and takes effect at once, without a deployment: the allow
// and deny lists (403 on the TCP peer's address), extra response headers, the body limit (413),
// the CORS preflight answered by the proxy, basic auth from a secret (401, then 200), a sticky
// client kept on one replica of three. A second application gets its settings at its deployment.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { busyboxImage, NO_DOCKER, startGitServer, testDocker, type GitServer } from '../support/docker.ts';
import { hostOf, removeEnvironment, startEngineBerth, type EngineBerth } from '../support/engine-berth.ts';
import { advancedSettingKeys } from '../../src/modules/services/advanced-settings/index.ts';
import { notAppliedSettings } from '../../src/modules/services/advanced-settings/engine-support.ts';

const found = await testDocker();
/** `openssl passwd -6 -salt abc s3cret` */
const TESTER = 'tester:$6$abc$Qciy6P8ZI4.BUgLFaLq4ucJ/kaRX8v1UyAM81WBAsuW.zwYw31yCKomfTgHAlZwPGi/aFdo83BhJQPQYtp74M0';

interface Answer { status: number; headers: http.IncomingHttpHeaders; body: string }

describe('docker engine: the ingress applies a service\'s network.ingress.* settings', { skip: found ? false : NO_DOCKER, timeout: 600_000 }, () => {
  let berth: EngineBerth;
  let git: GitServer;
  let envId: string;
  let app: { id: string; host: string };
  let defaults: Record<string, unknown>;
  const docker = found?.docker!;

  /** one request through the ingress; `declaredBody`: a Content-Length sent without the body (the proxy answers on the headers) */
  const request = (host: string, o: { method?: string; headers?: Record<string, string>; body?: string; declaredBody?: number } = {}): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const headers = { host, ...o.headers, ...(o.declaredBody !== undefined ? { 'content-length': String(o.declaredBody) } : {}) };
      const req = http.request({ host: '127.0.0.1', port: berth.ingressPort, path: '/', method: o.method ?? 'GET', headers, agent: false, timeout: 10_000 }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d) => { body += d; });
        res.on('end', () => { resolve({ status: res.statusCode ?? 0, headers: res.headers, body }); if (o.declaredBody !== undefined) req.destroy(); });
      });
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', reject);
      if (o.declaredBody !== undefined) req.flushHeaders();
      else req.end(o.body);
    });
  /**
   * The status line a POST declaring `size` bytes gets once its first 20 kB are sent, off a raw
   * socket: a proxy limit answers 413 on the headers; without one, the request reaches the test app
   * (busybox httpd), which answers without reading the body. Sending the whole body instead races
   * the app's close, which a client still writing may only see as a hang-up.
   */
  const bigPostStatus = (host: string, size: number): Promise<number> => new Promise((resolve, reject) => {
    const socket = net.connect(berth.ingressPort, '127.0.0.1');
    let data = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => {
      data += d;
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(data);
      if (status) { socket.destroy(); resolve(Number(status[1])); }
    });
    socket.on('error', () => {});
    socket.on('close', () => reject(new Error(`no status line came back for a POST declaring ${size} bytes (got ${JSON.stringify(data.slice(0, 80))})`)));
    socket.setTimeout(10_000, () => socket.destroy());
    socket.write(`POST / HTTP/1.1\r\nHost: ${host}\r\nContent-Length: ${size}\r\n\r\n`);
    socket.write(Buffer.alloc(20_000, 120));
  });
  /** the service's ingress settings: the defaults and these */
  const ingressSettings = async (id: string, patch: Record<string, unknown>) => {
    const r = await berth.api('PUT', `/application/${id}/advancedSettings`, { ...defaults, ...patch });
    assert.equal(r.status, 201, JSON.stringify(r.body));
  };
  const deploy = async (id: string, action: 'deploy' | 'redeploy') => {
    const d = await berth.api('POST', `/application/${id}/${action}`);
    assert.equal(d.status, 202, JSON.stringify(d.body));
    const final = await berth.settle(d.body.id);
    assert.equal(final.status, 'DEPLOYED', final.message);
    return (await berth.api('GET', `/deployment/${d.body.id}/log?tail=1000`)).body.results.map((l: { message: string }) => l.message);
  };
  const create = async (name: string, replicas: number, settings: Record<string, unknown> = {}) => {
    const created = await berth.api('POST', `/environment/${envId}/application`, {
      name, git_repository: { url: `${git.baseUrl}/who.git`, branch: 'main' }, ports: [{ internal_port: 8080, publicly_accessible: true }],
      cpu: 100, memory: 32, min_running_instances: replicas, max_running_instances: replicas,
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    if (Object.keys(settings).length > 0) await ingressSettings(created.body.id, settings);
    const log = await deploy(created.body.id, 'deploy');
    const links = (await berth.api('GET', `/application/${created.body.id}/link`)).body.results;
    return { id: created.body.id as string, host: hostOf(links.find((l: { is_default: boolean }) => l.is_default).url), log };
  };

  before(async () => {
    const base = await busyboxImage(docker);
    git = await startGitServer();
    await git.createRepo('who', { Dockerfile: `FROM ${base}\nCMD ["sh", "-c", "mkdir -p /tmp/www && hostname > /tmp/www/index.html && exec httpd -f -p 8080 -h /tmp/www"]\n` });
    berth = await startEngineBerth(found!.host);
    const org = (await berth.api('GET', '/organization')).body.results[0].id;
    const project = (await berth.api('POST', `/organization/${org}/project`, { name: `ingress-settings-${Date.now()}` })).body;
    envId = (await berth.api('POST', `/project/${project.id}/environment`, { name: 'dev', mode: 'DEVELOPMENT' })).body.id;
    const all = (await berth.api('GET', '/defaultApplicationAdvancedSettings')).body as Record<string, unknown>;
    defaults = Object.fromEntries(Object.entries(all).filter(([k]) => k.startsWith('network.ingress.')));
    app = await create('who', 3);
    assert.equal((await request(app.host)).status, 200);
  }, { timeout: 300_000 });
  after(async () => {
    await removeEnvironment(berth, docker, envId);
    await berth?.close();
    await git?.close();
  });

  test('on the docker engine the answers name exactly the keys its table says it does not apply', async () => {
    const res = await fetch(`${berth.process.url}/application/${app.id}/advancedSettings`, { headers: { authorization: `Token ${berth.token}` } });
    assert.equal(res.status, 200);
    await res.body?.cancel();
    const expected = notAppliedSettings('docker', advancedSettingKeys('application')).map((n) => n.key);
    assert.deepEqual(res.headers.get('x-berth-settings-not-applied')?.split(', '), expected);
    const support = (await berth.api('GET', `/application/${app.id}/advancedSettings/engineSupport`)).body;
    assert.equal(support.engine, 'docker');
    assert.deepEqual(support.results.filter((r: { applied: boolean }) => !r.applied).map((r: { key: string }) => r.key), expected);
    assert.ok(expected.includes('deployment.antiaffinity.pod'), 'Kubernetes-only keys are reported');
    assert.ok(!expected.includes('network.ingress.whitelist_source_range') && !expected.includes('hpa.cpu.average_utilization_percent'));
  });

  test('allow list: 403 for a client outside it, 200 inside; at once, without a deployment', async () => {
    const before = (await berth.api('GET', `/application/${app.id}/deploymentHistory`)).body.results.length;
    await ingressSettings(app.id, { 'network.ingress.whitelist_source_range': '10.0.0.0/8' });
    assert.equal((await request(app.host)).status, 403, 'a request from 127.0.0.1');
    await ingressSettings(app.id, { 'network.ingress.whitelist_source_range': '192.168.0.0/16, 127.0.0.0/8' });
    assert.equal((await request(app.host)).status, 200);
    assert.equal((await berth.api('GET', `/application/${app.id}/deploymentHistory`)).body.results.length, before, 'no deployment');
    assert.equal((await berth.api('GET', `/application/${app.id}/status`)).body.service_deployment_status, 'UP_TO_DATE', 'ingress keys need no redeploy');
  });

  test('deny list: 403 for a client inside it', async () => {
    await ingressSettings(app.id, { 'network.ingress.denylist_source_range': '10.0.0.0/8, 127.0.0.1/32' });
    assert.equal((await request(app.host)).status, 403);
    await ingressSettings(app.id, { 'network.ingress.denylist_source_range': '10.0.0.0/8' });
    assert.equal((await request(app.host)).status, 200);
  });

  test('extra headers on every response', async () => {
    await ingressSettings(app.id, { 'network.ingress.extra_headers': JSON.stringify({ 'X-Frame-Options': 'DENY', 'X-Berth-Note': "100% it's set" }) });
    const r = await request(app.host);
    assert.equal(r.status, 200);
    assert.equal(r.headers['x-frame-options'], 'DENY');
    assert.equal(r.headers['x-berth-note'], "100% it's set");
  });

  test('a body over proxy_body_size_mb gets 413; under it, the app answers', async () => {
    await ingressSettings(app.id, { 'network.ingress.proxy_body_size_mb': 1 });
    assert.equal((await request(app.host, { method: 'POST', declaredBody: 2 * 1024 * 1024 })).status, 413);
    assert.notEqual((await request(app.host, { method: 'POST', body: 'x'.repeat(10_000) })).status, 413);
    await ingressSettings(app.id, { 'network.ingress.proxy_body_size_mb': 0 });
    assert.notEqual(await bigPostStatus(app.host, 2 * 1024 * 1024), 413, '0: no limit');
  });

  test('CORS: the proxy answers the preflight as configured; responses carry Access-Control-Allow-Origin', async () => {
    await ingressSettings(app.id, {
      'network.ingress.enable_cors': true, 'network.ingress.cors_allow_origin': 'https://app.example, https://admin.example',
      'network.ingress.cors_allow_methods': 'GET, POST', 'network.ingress.cors_allow_headers': 'X-Custom, Content-Type',
    });
    const preflight = await request(app.host, { method: 'OPTIONS', headers: { origin: 'https://admin.example', 'access-control-request-method': 'POST' } });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers['access-control-allow-origin'], 'https://admin.example');
    assert.equal(preflight.headers['access-control-allow-methods'], 'GET, POST');
    assert.equal(preflight.headers['access-control-allow-headers'], 'X-Custom, Content-Type');
    const get = await request(app.host, { headers: { origin: 'https://app.example' } });
    assert.equal(get.status, 200);
    assert.equal(get.headers['access-control-allow-origin'], 'https://app.example');
    assert.equal((await request(app.host, { headers: { origin: 'https://evil.example' } })).headers['access-control-allow-origin'], undefined);
    await ingressSettings(app.id, { 'network.ingress.enable_cors': true });
    assert.equal((await request(app.host, { headers: { origin: 'https://any.example' } })).headers['access-control-allow-origin'], '*');
  });

  test('basic auth from the variable basic_auth_env_var names: 401 with WWW-Authenticate, 200 with the credentials', async () => {
    assert.equal((await berth.api('POST', `/application/${app.id}/secret`, { key: 'BASIC_AUTH', value: `${TESTER}\nother:$apr1$x$y` })).status, 201);
    await ingressSettings(app.id, { 'network.ingress.basic_auth_env_var': 'BASIC_AUTH' });
    const refused = await request(app.host);
    assert.equal(refused.status, 401);
    assert.match(String(refused.headers['www-authenticate']), /^Basic realm=/);
    const basic = (credentials: string) => ({ authorization: `Basic ${Buffer.from(credentials).toString('base64')}` });
    assert.equal((await request(app.host, { headers: basic('tester:wrong') })).status, 401);
    const ok = await request(app.host, { headers: basic('tester:s3cret') });
    assert.equal(ok.status, 200);
    assert.match(ok.body, /^[0-9a-f]{12}\n$/, 'a replica answered');
  });

  test('a sticky client stays on one replica of three', async () => {
    await ingressSettings(app.id, { 'network.ingress.enable_sticky_session': true });
    const spread = new Set<string>();
    for (let i = 0; i < 6; i++) spread.add((await request(app.host)).body);
    assert.ok(spread.size >= 2, `without the cookie requests are spread over the replicas (${spread.size})`);
    const first = await request(app.host);
    const cookie = String(first.headers['set-cookie']?.[0] ?? '').split(';')[0]!;
    assert.match(cookie, /^INGRESSCOOKIE=[0-9a-f]+$/);
    const seen = new Set<string>();
    for (let i = 0; i < 12; i++) seen.add((await request(app.host, { headers: { cookie } })).body);
    assert.deepEqual([...seen], [first.body], 'every request with the cookie reached the replica that set it');
  });

  test('settings given before a deployment are applied by it, and a redeploy keeps them', async () => {
    const other = await create('gated', 1, {
      'network.ingress.whitelist_source_range': '10.0.0.0/8', 'network.ingress.extra_headers': '{"X-Gated":"yes"}', 'network.ingress.basic_auth_env_var': 'MISSING',
    });
    assert.ok(other.log.some((l: string) => l.startsWith('The ingress applies: clients from 10.0.0.0/8 only')), other.log.join('\n'));
    assert.ok(other.log.some((l: string) => /no variable MISSING/.test(l)), 'what cannot be applied is said in the deployment log');
    const r = await request(other.host);
    assert.equal(r.status, 403);
    assert.equal(r.headers['x-gated'], 'yes', 'headers are on the proxy\'s own answers too');
    await deploy(other.id, 'redeploy');
    assert.equal((await request(other.host)).status, 403);
    await ingressSettings(other.id, { 'network.ingress.basic_auth_env_var': 'MISSING' });
    assert.equal((await request(other.host)).status, 401, 'basic auth naming no variable refuses everyone');
  });
});
