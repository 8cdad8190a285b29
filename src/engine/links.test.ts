import { test } from 'node:test';
import assert from 'node:assert/strict';
import { publicLinks, serviceHost } from './links.ts';

const env = '0a1b2c3d-4e5f-6789-abcd-ef0123456789';
const settings = { domain: 'localhost', port: 8000 };

test('a service without public ports has no links', () => {
  assert.deepEqual(publicLinks(settings, { slug: 'api', environmentId: env, ports: [{ internal_port: 80, publicly_accessible: false }] }), []);
});

test('the default port gets the short host and a port host; others only their port host', () => {
  const links = publicLinks(settings, {
    slug: 'web', environmentId: env,
    ports: [{ internal_port: 8080, publicly_accessible: true }, { internal_port: 9090, publicly_accessible: true, is_default: true }],
  });
  assert.deepEqual(links.map((l) => [l.url, l.internal_port, l.is_default]), [
    ['http://p8080-web-0a1b2c3d.localhost:8000', 8080, false],
    ['http://web-0a1b2c3d.localhost:8000', 9090, true],
    ['http://p9090-web-0a1b2c3d.localhost:8000', 9090, false],
  ]);
});

test('port 80 is left out of the URL and names become DNS labels', () => {
  assert.equal(serviceHost({ domain: 'apps.example.com', port: 80 }, { slug: 'My App_1', environmentId: env }), 'my-app-1-0a1b2c3d.apps.example.com');
  const [link] = publicLinks({ domain: 'apps.example.com', port: 80 }, { slug: 'x', environmentId: env, ports: [{ internal_port: 3000, publicly_accessible: true }] });
  assert.equal(link!.url, 'http://x-0a1b2c3d.apps.example.com');
});

test('with the hosts\' certificate live (httpsPort) URLs are https, 443 left out', () => {
  const ports = [{ internal_port: 8080, publicly_accessible: true }];
  const on8443 = publicLinks({ ...settings, httpsPort: 8443 }, { slug: 'web', environmentId: env, ports });
  assert.deepEqual(on8443.map((l) => [l.url, l.external_port]), [['https://web-0a1b2c3d.localhost:8443', 8443], ['https://p8080-web-0a1b2c3d.localhost:8443', 8443]]);
  const on443 = publicLinks({ domain: 'apps.example.com', port: 80, httpsPort: 443 }, { slug: 'web', environmentId: env, ports });
  assert.equal(on443[0]!.url, 'https://web-0a1b2c3d.apps.example.com');
  assert.equal(publicLinks({ ...settings, httpsPort: null }, { slug: 'web', environmentId: env, ports })[0]!.url, 'http://web-0a1b2c3d.localhost:8000');
});
