// Upgrading from the Caddy ingress (0330 → 0334): the Caddy an earlier berth left running for the
// data dir holds INGRESS_PORT. The first HAProxy start stops it and serves the routes it had saved.
// The "Caddy" here is a stand-in process named caddy that holds the port, beside a real autosave.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHaproxyIngress, findHaproxy, stopIngress } from '../../src/engine/ingress/haproxy.ts';
import { freePort } from '../support/processes.ts';
import { namedServer } from '../support/http-load.ts';

const skip = !findHaproxy() && process.env.BERTH_REQUIRE_DOCKER !== '1' ? 'no haproxy binary (install haproxy or set HAPROXY_BIN)' : false;

function get(port: number, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, headers: { host }, agent: false }, (res) => {
      let body = '';
      res.on('data', (d) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    }).on('error', reject);
  });
}

test('the first HAProxy start stops the Caddy an earlier berth left running and serves its saved routes', { skip }, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'berth-ingress-'));
  const ingressDir = join(dataDir, 'ingress');
  const port = await freePort();
  const upstream = await namedServer('kept');
  mkdirSync(join(ingressDir, 'config', 'caddy'), { recursive: true });
  writeFileSync(join(ingressDir, 'config', 'caddy', 'autosave.json'), JSON.stringify({ apps: { http: { servers: { berth: { routes: [
    { '@id': 'berth-route-svc-kept', match: [{ host: ['kept-0a1b2c3d.localhost'] }], handle: [{ handler: 'reverse_proxy', upstreams: [{ dial: upstream.dial }] }] },
    { '@id': 'berth-fallback', handle: [{ handler: 'static_response', status_code: 404 }] },
  ] } } } } }));
  const stand = join(dataDir, 'caddy');
  writeFileSync(stand, `require('node:http').createServer((q, s) => s.end('old caddy')).listen(${port}, '127.0.0.1', () => console.log('up'));\n`);
  const caddy = spawn(process.execPath, [stand], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<NodeJS.Signals | null>((r) => caddy.once('exit', (_code, signal) => r(signal)));
  const logs: string[] = [];
  try {
    await new Promise((r) => caddy.stdout!.once('data', r));
    writeFileSync(join(ingressDir, 'caddy.pid'), `${caddy.pid}\n`);
    assert.equal((await get(port, 'kept-0a1b2c3d.localhost')).body, 'old caddy');
    const ingress = createHaproxyIngress({ dataDir, host: '127.0.0.1', port, domain: 'localhost', logger: { info() {}, warn: (_o, m) => logs.push(String(m)) } });
    await ingress.ensure();
    assert.equal(await exited, 'SIGTERM', 'the earlier Caddy was stopped');
    assert.equal(existsSync(join(ingressDir, 'caddy.pid')), false);
    assert.match(logs.join('\n'), /stopped the Caddy an earlier berth started/);
    assert.deepEqual(await get(port, 'kept-0a1b2c3d.localhost'), { status: 200, body: 'kept' });
    assert.deepEqual(await ingress.list(), [{ id: 'svc-kept', hosts: ['kept-0a1b2c3d.localhost'], upstreams: [upstream.dial] }]);
    assert.deepEqual(JSON.parse(readFileSync(join(ingressDir, 'routes.json'), 'utf8')).routes.map((r: { id: string }) => r.id), ['svc-kept']);
  } finally {
    caddy.kill('SIGKILL');
    await stopIngress({ dataDir });
    await upstream.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
