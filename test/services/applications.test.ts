// Applications: the seed's minimal body and the public clients' body, defaults, the echo of every
// member, cluster maxima, probes, ports, edit semantics, status, authorization and name clashes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectErrorBody, seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';
import { seedEnvironment, type SeededEnvironment } from '../support/factories.ts';
import { serviceExamples } from '../../src/http/examples/services.ts';

/** the reference's example (the seed's minimal body) */
const SEED_BODY = serviceExamples.createApplication;

/** the shape the public TypeScript/Terraform clients send: every member, some null, healthchecks {} */
const CLIENT_BODY = {
  name: 'Web Front', description: 'front end', id: 'ignored', created_at: 'ignored',
  git_repository: { url: 'https://gitlab.com/acme/web', branch: 'develop', root_path: '/web', provider: 'GITLAB', git_token_id: null, owner: 'acme', name: 'web' },
  build_mode: 'DOCKER', dockerfile_path: 'web/Dockerfile', docker_target_build_stage: null, cpu: 250, memory: 256, gpu: 0,
  ephemeral_storage_in_gib: null, min_running_instances: 0, max_running_instances: -1, healthchecks: {},
  auto_preview: true, auto_deploy: null, arguments: ['--port', '3000'], entrypoint: null, cpu_architecture: 'ARM64',
  annotations_groups: [], labels_groups: [], icon_uri: 'app://qovery-console/nodejs', autoscaling: null,
  ports: [{ name: 'http', internal_port: 3000, external_port: null, protocol: 'HTTP', publicly_accessible: true, is_default: true }],
  storage: [{ type: 'FAST_SSD', size: 10, mount_point: '/data' }],
};

describe('applications', () => {
  let t: TestApp;
  let org: SeededOrganization;
  let env: SeededEnvironment;
  before(async () => {
    t = await startTestApp();
    org = await seedOrganization(t);
    env = await seedEnvironment(t, org, { capacity: { cpu: 4000, memory: 8192, gpu: 1 }, autoPreview: true });
  });
  after(async () => t.close());

  const create = (body: unknown, token = org.token, envId = env.id) => t.request('POST', `/environment/${envId}/application`, { token, body });

  test('the seed minimal body creates an application with the defaults (201)', async () => {
    const r = await create({ ...SEED_BODY, name: 'seed-minimal' });
    assert.equal(r.status, 201, r.raw);
    const a = r.body;
    assert.match(a.id, /^[0-9a-f-]{36}$/);
    assert.equal(a.service_type, 'APPLICATION');
    assert.deepEqual(a.environment, { id: env.id });
    assert.equal(a.maximum_cpu, 4000);
    assert.equal(a.maximum_memory, 8192);
    assert.equal(a.maximum_gpu, 1);
    assert.deepEqual(a.git_repository, { url: 'https://github.com/acme/api.git', branch: 'main', root_path: '/', git_token_id: null, provider: 'GITHUB', owner: 'acme', name: 'api' });
    assert.equal(a.build_mode, 'DOCKER');
    assert.equal(a.dockerfile_path, 'Dockerfile');
    assert.equal(a.gpu, 0);
    assert.equal(a.ephemeral_storage_in_gib, null);
    assert.equal(a.auto_preview, true, 'from the environment');
    assert.equal(a.auto_deploy, true);
    assert.equal(a.cpu_architecture, null);
    assert.deepEqual(a.healthchecks, { readiness_probe: null, liveness_probe: null });
    assert.deepEqual(a.arguments, []);
    assert.equal(a.entrypoint, null);
    assert.deepEqual(a.storage, []);
    assert.equal(a.ports.length, 1);
    assert.equal(a.ports[0].internal_port, 8080);
    assert.equal(a.ports[0].external_port, 443);
    assert.equal(a.ports[0].publicly_accessible, true);
    assert.match(a.ports[0].id, /^[0-9a-f-]{36}$/);
    assert.equal(a.icon_uri, 'app://qovery-console/application');
    assert.deepEqual(a.annotations_groups, []);
    assert.ok(a.created_at.endsWith('Z'));
    const status = await t.request('GET', `/application/${a.id}/status`, { token: org.token });
    assert.deepEqual(status.body, { id: a.id, state: 'STOPPED', service_deployment_status: 'NEVER_DEPLOYED', last_deployment_date: null });
  });

  test('the public clients body is accepted and every member echoed; get, list, edit, delete round-trip', async () => {
    const r = await create(CLIENT_BODY);
    assert.equal(r.status, 201, r.raw);
    const a = r.body;
    assert.equal(a.name, 'Web Front');
    assert.equal(a.description, 'front end');
    assert.equal(a.git_repository.provider, 'GITLAB');
    assert.equal(a.git_repository.root_path, '/web');
    assert.equal(a.min_running_instances, 0);
    assert.equal(a.max_running_instances, -1);
    assert.equal(a.cpu_architecture, 'ARM64');
    assert.deepEqual(a.arguments, ['--port', '3000']);
    assert.equal(a.auto_deploy, null);
    assert.equal(a.ports[0].name, 'http');
    assert.equal(a.ports[0].is_default, true);
    assert.equal(a.ports[0].external_port, 443);
    assert.equal(a.storage[0].size, 10);
    assert.equal(a.icon_uri, 'app://qovery-console/nodejs');
    assert.notEqual(a.id, 'ignored');
    const got = await t.request('GET', `/application/${a.id}`, { token: await org.tokenFor('VIEWER') });
    assert.deepEqual(got.body, a);
    const list = await t.request('GET', `/environment/${env.id}/application`, { token: org.token });
    assert.ok(list.body.results.some((x: { id: string }) => x.id === a.id));
    assert.equal(list.body.pagination.total_count, list.body.results.length);
    const edit = serviceExamples.editApplication;
    const edited = await t.request('PUT', `/application/${a.id}`, { token: await org.tokenFor('DEVOPS'), body: { ...edit, entrypoint: '/start' } });
    assert.equal(edited.status, 200, edited.raw);
    assert.deepEqual([edited.body.cpu, edited.body.max_running_instances], [edit.cpu, edit.max_running_instances]);
    assert.equal(edited.body.entrypoint, '/start');
    assert.equal(edited.body.memory, 256, 'omitted members keep their value');
    assert.deepEqual(edited.body.arguments, ['--port', '3000']);
    assert.equal(edited.body.ports[0].id, a.ports[0].id);
    const cleared = await t.request('PUT', `/application/${a.id}`, { token: org.token, body: { entrypoint: null, ports: [] } });
    assert.equal(cleared.body.entrypoint, null);
    assert.deepEqual(cleared.body.ports, []);
    assert.equal((await t.request('DELETE', `/application/${a.id}`, { token: await org.tokenFor('DEVOPS') })).status, 204);
    expectErrorBody(await t.request('GET', `/application/${a.id}`, { token: org.token }), 404);
  });

  test('healthchecks: exactly one probe kind; defaults filled; port from the first port', async () => {
    const ok = await create({ ...SEED_BODY, name: 'probed', healthchecks: {
      readiness_probe: { type: { http: { path: '/ready' } } },
      liveness_probe: { type: { tcp: null, exec: { command: ['true'] } }, failure_threshold: 3 },
    } });
    assert.equal(ok.status, 201, ok.raw);
    assert.deepEqual(ok.body.healthchecks.readiness_probe, {
      type: { http: { path: '/ready', scheme: 'HTTP', port: 8080 } }, initial_delay_seconds: 30, period_seconds: 10, timeout_seconds: 5, success_threshold: 1, failure_threshold: 9,
    });
    assert.deepEqual(ok.body.healthchecks.liveness_probe.type, { exec: { command: ['true'] } });
    assert.equal(ok.body.healthchecks.liveness_probe.failure_threshold, 3);
    for (const type of [{}, { tcp: { port: 1 }, http: { port: 2 } }, { grpc: null }]) {
      const bad = await create({ ...SEED_BODY, name: 'bad-probe', healthchecks: { readiness_probe: { type } } });
      assert.equal(expectErrorBody(bad, 400).message, 'healthchecks.readiness_probe.type must hold exactly one of tcp, http, exec, grpc');
    }
    const noPort = await create({ ...SEED_BODY, name: 'no-port', ports: [], healthchecks: { liveness_probe: { type: { tcp: {} } } } });
    assert.match(expectErrorBody(noPort, 400).message, /healthchecks.liveness_probe.type.tcp.port is required/);
  });

  test('cpu, memory and gpu above the cluster maximum are 400 saying the maximum', async () => {
    assert.match(expectErrorBody(await create({ ...SEED_BODY, name: 'big', cpu: 4001 }), 400).message, /cpu 4001 exceeds the cluster's maximum of 4000/);
    assert.match(expectErrorBody(await create({ ...SEED_BODY, name: 'big', memory: 9000 }), 400).message, /maximum of 8192 MB/);
    assert.match(expectErrorBody(await create({ ...SEED_BODY, name: 'big', gpu: 2 }), 400).message, /gpu 2 exceeds the cluster's maximum of 1/);
    const small = await create({ ...SEED_BODY, name: 'small-then-big' });
    assert.match(expectErrorBody(await t.request('PUT', `/application/${small.body.id}`, { token: org.token, body: { cpu: 8000 } }), 400).message, /maximum of 4000/);
  });

  test('validation: min > max instances, ports, storage, git url, missing members', async () => {
    assert.match(expectErrorBody(await create({ ...SEED_BODY, name: 'v', min_running_instances: 3, max_running_instances: 2 }), 400).message, /min_running_instances \(3\) must not exceed max_running_instances \(2\)/);
    assert.match(expectErrorBody(await create({ ...SEED_BODY, name: 'v', ports: [{ internal_port: 0, publicly_accessible: true }] }), 400).message, /ports.0.internal_port/);
    assert.match(expectErrorBody(await create({ ...SEED_BODY, name: 'v', ports: [{ internal_port: 70000, publicly_accessible: true }] }), 400).message, /ports.0.internal_port/);
    assert.match(expectErrorBody(await create({ ...SEED_BODY, name: 'v', ports: [{ internal_port: 80, publicly_accessible: true, protocol: 'SMTP' }] }), 400).message, /ports.0.protocol/);
    assert.match(expectErrorBody(await create({ ...SEED_BODY, name: 'v', ports: [{ internal_port: 80, publicly_accessible: true }, { internal_port: 80, publicly_accessible: false }] }), 400).message, /declared twice/);
    assert.match(expectErrorBody(await create({ ...SEED_BODY, name: 'v', storage: [{ size: 2, mount_point: '/d' }] }), 400).message, /storage.0.size/);
    assert.match(expectErrorBody(await create({ ...SEED_BODY, name: 'v', git_repository: { url: 'not a url' } }), 400).message, /git_repository.url: git URL must not contain spaces/);
    assert.match(expectErrorBody(await create({ ...SEED_BODY, name: 'v', git_repository: { url: 'ext::sh -c id' } }), 400).message, /git_repository.url: git transport "ext::" is not allowed/);
    assert.match(expectErrorBody(await create({ ...SEED_BODY, name: 'v', cpu_architecture: 'X86' }), 400).message, /cpu_architecture/);
    assert.match(expectErrorBody(await create({ ...SEED_BODY, name: 'v', build_mode: 'BUILDPACKS' }), 400).message, /build_mode/);
    assert.match(expectErrorBody(await create({ name: 'v' }), 400).message, /git_repository is required/);
    assert.match(expectErrorBody(await create({ ...SEED_BODY, name: '   ' }), 400).message, /name/);
    assert.match(expectErrorBody(await create({ ...SEED_BODY, name: 'v', annotations_groups: [{ id: '00000000-0000-4000-8000-000000000001' }] }), 400).message, /unknown annotations group/);
    assert.match(expectErrorBody(await create({ ...SEED_BODY, name: 'v', labels_groups: [{ id: '00000000-0000-4000-8000-000000000001' }] }), 400).message, /unknown labels group/);
  });

  test('names are unique in the environment across letter case (409); renaming onto a taken name too', async () => {
    assert.equal((await create({ ...SEED_BODY, name: 'Unique-App' })).status, 201);
    assert.equal(expectErrorBody(await create({ ...SEED_BODY, name: 'unique-APP' }), 409).message, 'Service name is already taken in this environment');
    const other = await create({ ...SEED_BODY, name: 'other-app' });
    expectErrorBody(await t.request('PUT', `/application/${other.body.id}`, { token: org.token, body: { name: 'UNIQUE-app' } }), 409);
    const env2 = await seedEnvironment(t, org);
    assert.equal((await create({ ...SEED_BODY, name: 'unique-app' }, org.token, env2.id)).status, 201, 'another environment may reuse it');
  });

  test('authorization: 401, VIEWER cannot write, another organization 403, unknown ids 404', async () => {
    const a = await create({ ...SEED_BODY, name: 'authz' });
    expectErrorBody(await t.request('GET', `/application/${a.body.id}`), 401);
    const viewer = await org.tokenFor('VIEWER');
    expectErrorBody(await create({ ...SEED_BODY, name: 'by-viewer' }, viewer), 403);
    expectErrorBody(await t.request('PUT', `/application/${a.body.id}`, { token: viewer, body: { cpu: 600 } }), 403);
    expectErrorBody(await t.request('DELETE', `/application/${a.body.id}`, { token: viewer }), 403);
    const stranger = await seedOrganization(t);
    expectErrorBody(await t.request('GET', `/application/${a.body.id}`, { token: stranger.token }), 403);
    expectErrorBody(await t.request('GET', `/environment/${env.id}/application`, { token: stranger.token }), 403);
    expectErrorBody(await t.request('GET', '/application/00000000-0000-4000-8000-000000000000', { token: org.token }), 404);
    expectErrorBody(await create({ ...SEED_BODY, name: 'x' }, org.token, '00000000-0000-4000-8000-000000000000'), 404);
    expectErrorBody(await t.request('GET', `/application/${a.body.id}/status`, { token: stranger.token }), 403);
  });

  test('an environment being deleted takes no new service and no edit (409)', async () => {
    const env2 = await seedEnvironment(t, org);
    const a = await create({ ...SEED_BODY, name: 'doomed' }, org.token, env2.id);
    await t.ctx.db.query('update environments set deleting = true where id = $1', [env2.id]);
    expectErrorBody(await create({ ...SEED_BODY, name: 'late' }, org.token, env2.id), 409);
    expectErrorBody(await t.request('PUT', `/application/${a.body.id}`, { token: org.token, body: { cpu: 600 } }), 409);
  });

  test('editing a deployed application marks it OUT_OF_DATE; an unchanged edit does not', async () => {
    const a = await create({ ...SEED_BODY, name: 'deployed' });
    await t.ctx.db.query(`update services set deployment_status = 'UP_TO_DATE', last_deployment_at = now() where id = $1`, [a.body.id]);
    await t.request('PUT', `/application/${a.body.id}`, { token: org.token, body: { cpu: 500 } });
    assert.equal((await t.request('GET', `/application/${a.body.id}/status`, { token: org.token })).body.service_deployment_status, 'UP_TO_DATE');
    await t.request('PUT', `/application/${a.body.id}`, { token: org.token, body: { cpu: 600 } });
    const s = (await t.request('GET', `/application/${a.body.id}/status`, { token: org.token })).body;
    assert.equal(s.service_deployment_status, 'OUT_OF_DATE');
    assert.ok(s.last_deployment_date.endsWith('Z'));
  });
});
