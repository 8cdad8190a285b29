// The docker engine without its ingress proxy (haproxy missing): berth says so at start, at warn,
// and a service's links are an empty list with the reason, instead of addresses that refuse
// connections (issue 31, item 3).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { NO_DOCKER, testDocker } from '../support/docker.ts';
import { startEngineBerth, type EngineBerth } from '../support/engine-berth.ts';

const found = await testDocker();

describe('docker engine without haproxy', { skip: found ? false : NO_DOCKER, timeout: 300_000 }, () => {
  let berth: EngineBerth;
  before(async () => { berth = await startEngineBerth(found!.host, { HAPROXY_BIN: '/nonexistent/haproxy' }); });
  after(async () => { await berth?.close(); });

  test('startup warns, and links are empty with the reason', async () => {
    assert.match(berth.process.output(), /haproxy is not installed .*services get no public URL/);
    const org = (await berth.api('GET', '/organization')).body.results[0].id;
    const project = (await berth.api('POST', `/organization/${org}/project`, { name: `no-ingress-${Date.now()}` })).body;
    const env = (await berth.api('POST', `/project/${project.id}/environment`, { name: 'dev', mode: 'DEVELOPMENT' })).body.id;
    const registry = (await berth.api('POST', `/organization/${org}/containerRegistry`, { name: 'hub', kind: 'DOCKER_HUB', url: 'https://docker.io' })).body;
    const make = async (name: string, open: boolean) => (await berth.api('POST', `/environment/${env}/container`, {
      name, registry_id: registry.id, image_name: 'nginx', tag: '1', ports: [{ internal_port: 8080, publicly_accessible: open }],
    })).body.id as string;
    const web = await berth.api('GET', `/container/${await make('web', true)}/link`);
    assert.equal(web.status, 200);
    assert.deepEqual(web.body.results, [], 'no address that would refuse connections');
    assert.match(web.body.public_urls_unavailable_reason, /haproxy.*not installed.*HAPROXY_BIN/);
    const worker = await berth.api('GET', `/container/${await make('worker', false)}/link`);
    assert.deepEqual(worker.body, { results: [], public_urls_unavailable_reason: null }, 'no public port: nothing to explain');
  });
});
