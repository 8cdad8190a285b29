import { test } from 'node:test';
import assert from 'node:assert/strict';
import { baseConfig, checkHost, checkRoute, checkUpstream, readRoutes, routeJson } from './caddy-config.ts';

test('hosts are lower-case DNS names strictly below the ingress domain', () => {
  assert.equal(checkHost('Web-0a1b2c3d.localhost', 'localhost'), 'web-0a1b2c3d.localhost');
  assert.equal(checkHost('p80-web.apps.example.com', 'apps.example.com'), 'p80-web.apps.example.com');
  for (const bad of ['localhost', 'web.example.com', 'web.notlocalhost', '-web.localhost', 'we_b.localhost', 'a..localhost', '*.localhost', `${'a'.repeat(64)}.localhost`, 'web.localhost.']) {
    assert.throws(() => checkHost(bad, 'localhost'), { name: 'IngressInputError' }, bad);
  }
  assert.equal(checkHost('any.example.org'), 'any.example.org', 'without a domain only the DNS syntax is checked');
});

test('upstreams are 127.0.0.1:<port> and nothing else', () => {
  assert.equal(checkUpstream('127.0.0.1:8080'), '127.0.0.1:8080');
  assert.equal(checkUpstream('127.0.0.1:08080'), '127.0.0.1:8080');
  for (const bad of ['127.0.0.1:0', '127.0.0.1:65536', 'localhost:80', '10.0.0.5:80', '127.0.0.2:80', '[::1]:80', 'unix//var/run/docker.sock', '127.0.0.1:80 ', '127.0.0.1']) {
    assert.throws(() => checkUpstream(bad), { name: 'IngressInputError' }, bad);
  }
});

test('a route needs a safe id, a host and an upstream; duplicates are dropped', () => {
  assert.deepEqual(checkRoute({ id: 'svc-1_a.b', hosts: ['a.localhost', 'A.localhost'], upstreams: ['127.0.0.1:1', '127.0.0.1:1'] }, 'localhost'),
    { id: 'svc-1_a.b', hosts: ['a.localhost'], upstreams: ['127.0.0.1:1'] });
  assert.throws(() => checkRoute({ id: 'a/b', hosts: ['a.localhost'], upstreams: ['127.0.0.1:1'] }), /route id/);
  assert.throws(() => checkRoute({ id: 'a', hosts: [], upstreams: ['127.0.0.1:1'] }), /no host/);
  assert.throws(() => checkRoute({ id: 'a', hosts: ['a.localhost'], upstreams: [] }), /no upstream/);
});

test('the config: berth server on host:port without automatic HTTPS, loopback admin with origin checks, catch-all last', () => {
  const config = baseConfig({ host: '0.0.0.0', port: 8000, adminPort: 2019 }, [routeJson({ id: 'x', hosts: ['x.localhost'], upstreams: ['127.0.0.1:5'] })]) as any;
  assert.deepEqual(config.admin, { listen: '127.0.0.1:2019', enforce_origin: true, origins: ['127.0.0.1:2019'], config: { persist: true } });
  const server = config.apps.http.servers.berth;
  assert.deepEqual(server.listen, ['0.0.0.0:8000']);
  assert.deepEqual(server.automatic_https, { disable: true });
  assert.deepEqual(server.routes.map((r: any) => r['@id']), ['berth-route-x', 'berth-fallback']);
  assert.equal(server.routes[1].handle[0].status_code, 404);
  assert.deepEqual(readRoutes(server.routes), [{ id: 'x', hosts: ['x.localhost'], upstreams: ['127.0.0.1:5'] }]);
  assert.deepEqual((baseConfig({ host: '::', port: 80, adminPort: 1 }) as any).apps.http.servers.berth.listen, ['[::]:80']);
});
