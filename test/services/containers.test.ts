// Containers: an image from a registry of the same organization (else 400), the registry object
// in the response, the shared runtime members, round-trip with the public clients' body.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectErrorBody, seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';
import { seedEnvironment, type SeededEnvironment } from '../support/factories.ts';
import { serviceExamples } from '../../src/http/examples/services.ts';

async function seedRegistry(t: TestApp, orgId: string, name: string, kind = 'DOCKER_HUB', url = 'https://docker.io'): Promise<string> {
  const rows = await t.ctx.db.query<{ id: string }>(
    `insert into container_registries (organization_id, name, kind, url) values ($1, $2, $3, $4) returning id`, [orgId, name, kind, url]);
  return rows[0]!.id;
}

describe('containers', () => {
  let t: TestApp;
  let org: SeededOrganization;
  let env: SeededEnvironment;
  let registryId: string;
  before(async () => {
    t = await startTestApp();
    org = await seedOrganization(t);
    env = await seedEnvironment(t, org, { capacity: { cpu: 3000, memory: 6144 } });
    registryId = await seedRegistry(t, org.id, 'hub');
  });
  after(async () => t.close());

  const create = (body: unknown, token = org.token) => t.request('POST', `/environment/${env.id}/container`, { token, body });

  test('minimal body (the reference\'s example): 201 with defaults, source and registry objects', async () => {
    const example = serviceExamples.createContainer;
    const r = await create({ ...example, registry_id: registryId });
    assert.equal(r.status, 201, r.raw);
    const c = r.body;
    const registry = { id: registryId, name: 'hub', url: 'https://docker.io', kind: 'DOCKER_HUB' };
    assert.equal(c.service_type, 'CONTAINER');
    assert.deepEqual(c.registry, registry);
    assert.deepEqual(c.source, { image_name: example.image_name, tag: example.tag, registry_id: registryId, registry });
    assert.deepEqual([c.cpu, c.memory, c.gpu, c.min_running_instances, c.max_running_instances], [500, 512, 0, 1, 1]);
    assert.deepEqual([c.maximum_cpu, c.maximum_memory, c.maximum_gpu], [3000, 6144, 0]);
    assert.equal(c.auto_preview, false, 'from the environment');
    assert.equal(c.auto_deploy, false);
    assert.equal(c.icon_uri, 'app://qovery-console/container');
  });

  test('public clients body round-trip: create, get, list, edit (tag, registry), delete', async () => {
    const other = await seedRegistry(t, org.id, 'ghcr', 'GITHUB_CR', 'https://ghcr.io');
    const body = {
      name: 'worker', description: null, registry_id: registryId, image_name: 'acme/worker', tag: '1.0', arguments: ['run'], entrypoint: '/w',
      cpu: 1000, memory: 1024, gpu: 0, ephemeral_storage_in_gib: null, cpu_architecture: 'AMD64', min_running_instances: 2, max_running_instances: 4,
      healthchecks: { readiness_probe: null, liveness_probe: { type: { tcp: { port: 9000, host: null } }, initial_delay_seconds: 5 } },
      auto_preview: true, auto_deploy: true, annotations_groups: [], labels_groups: [], icon_uri: 'app://x', autoscaling: null,
      ports: [{ internal_port: 9000, publicly_accessible: false, protocol: 'TCP' }], storage: [],
    };
    const r = await create(body);
    assert.equal(r.status, 201, r.raw);
    assert.equal(r.body.ports[0].external_port, null);
    assert.equal(r.body.healthchecks.liveness_probe.initial_delay_seconds, 5);
    assert.deepEqual(r.body.arguments, ['run']);
    const got = await t.request('GET', `/container/${r.body.id}`, { token: await org.tokenFor('VIEWER') });
    assert.deepEqual(got.body, r.body);
    const list = await t.request('GET', `/environment/${env.id}/container?page=1&page_size=1`, { token: org.token });
    assert.equal(list.body.results.length, 1);
    assert.equal(list.body.pagination.page_size, 1);
    const edited = await t.request('PUT', `/container/${r.body.id}`, { token: org.token, body: { ...serviceExamples.editContainer, registry_id: other } });
    assert.equal(edited.status, 200, edited.raw);
    assert.equal(edited.body.tag, serviceExamples.editContainer.tag);
    assert.equal(edited.body.registry.kind, 'GITHUB_CR');
    assert.equal(edited.body.image_name, 'acme/worker');
    assert.equal(edited.body.min_running_instances, 2);
    assert.equal((await t.request('DELETE', `/container/${r.body.id}`, { token: org.token })).status, 204);
    expectErrorBody(await t.request('GET', `/container/${r.body.id}/status`, { token: org.token }), 404);
  });

  test('a registry of another organization, or unknown, is 400; missing image members 400', async () => {
    const stranger = await seedOrganization(t);
    const foreign = await seedRegistry(t, stranger.id, 'foreign');
    assert.match(expectErrorBody(await create({ name: 'c1', registry_id: foreign, image_name: 'a', tag: 'b' }), 400).message, /registry_id .* is not a container registry of this organization/);
    assert.match(expectErrorBody(await create({ name: 'c1', registry_id: '00000000-0000-4000-8000-000000000000', image_name: 'a', tag: 'b' }), 400).message, /not a container registry/);
    assert.match(expectErrorBody(await create({ name: 'c1', registry_id: registryId, tag: 'b' }), 400).message, /image_name is required/);
    assert.match(expectErrorBody(await create({ name: 'c1', registry_id: registryId, image_name: 'a', tag: 'b', cpu: 3001 }), 400).message, /maximum of 3000/);
    const c = await create({ name: 'c2', registry_id: registryId, image_name: 'a', tag: 'b' });
    assert.match(expectErrorBody(await t.request('PUT', `/container/${c.body.id}`, { token: org.token, body: { registry_id: foreign } }), 400).message, /not a container registry/);
  });

  test('a container id is not an application id (404), and DEVOPS may write', async () => {
    const c = await create({ name: 'typed', registry_id: registryId, image_name: 'a', tag: 'b' }, await org.tokenFor('DEVOPS'));
    assert.equal(c.status, 201);
    expectErrorBody(await t.request('GET', `/application/${c.body.id}`, { token: org.token }), 404);
    expectErrorBody(await t.request('DELETE', `/job/${c.body.id}`, { token: org.token }), 404);
    expectErrorBody(await t.request('PUT', `/container/${c.body.id}`, { token: await org.tokenFor('VIEWER'), body: { tag: 'c' } }), 403);
  });
});
