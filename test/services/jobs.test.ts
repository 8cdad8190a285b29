// Jobs: every member of the seed's job request and response, the schedule rules (cron or
// lifecycle), sources (image in an organization registry, or docker), build_settings replaced
// whole, the numeric minima, and name clashes with other service types.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectErrorBody, seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';
import { seedEnvironment, type SeededEnvironment } from '../support/factories.ts';
import { serviceExamples } from '../../src/http/examples/services.ts';

async function seedRegistry(t: TestApp, orgId: string, name: string): Promise<string> {
  const rows = await t.ctx.db.query<{ id: string }>(
    `insert into container_registries (organization_id, name, kind, url) values ($1, $2, 'ECR', 'https://123.dkr.ecr.eu-west-3.amazonaws.com') returning id`, [orgId, name]);
  return rows[0]!.id;
}

describe('jobs', () => {
  let t: TestApp;
  let org: SeededOrganization;
  let env: SeededEnvironment;
  let registryId: string;
  let cronBody: Record<string, unknown>;
  before(async () => {
    t = await startTestApp();
    org = await seedOrganization(t);
    env = await seedEnvironment(t, org, { capacity: { cpu: 2000, memory: 4096, gpu: 0 }, autoPreview: true });
    registryId = await seedRegistry(t, org.id, 'ecr-main');
    // the reference's example, with this organization's registry
    const example = serviceExamples.createJob;
    cronBody = { ...example, source: { image: { ...example.source.image, registry_id: registryId } } };
  });
  after(async () => t.close());

  const create = (body: unknown, token = org.token) => t.request('POST', `/environment/${env.id}/job`, { token, body });

  test('a cron job from an image: 201, defaults, registry in full, maxima, build_settings defaults', async () => {
    const r = await create(cronBody);
    assert.equal(r.status, 201, r.raw);
    const j = r.body;
    assert.equal(j.service_type, 'JOB');
    assert.equal(j.job_type, 'CRON');
    assert.deepEqual(j.schedule, { cronjob: { scheduled_at: '0 3 * * *', timezone: 'Etc/UTC', arguments: [], entrypoint: null } });
    assert.deepEqual(j.source, { image: { image_name: 'acme/report', tag: '1.2.0', registry_id: registryId, registry: { id: registryId, name: 'ecr-main', url: 'https://123.dkr.ecr.eu-west-3.amazonaws.com', kind: 'ECR' } } });
    assert.deepEqual([j.maximum_cpu, j.maximum_memory, j.maximum_gpu], [2000, 4096, 0]);
    assert.deepEqual([j.cpu, j.memory, j.gpu, j.max_nb_restart, j.max_duration_seconds, j.port], [500, 512, 0, 0, 300, null]);
    assert.equal(j.auto_preview, true);
    assert.equal(j.auto_deploy, false);
    assert.equal(j.cpu_architecture, null);
    assert.equal(j.ephemeral_storage_in_gib, null);
    assert.deepEqual(j.annotations_groups, []);
    assert.deepEqual(j.labels_groups, []);
    assert.deepEqual(j.environment, { id: env.id });
    assert.deepEqual(j.build_settings, { timeout_max_sec: 1800, cpu_max_in_milli: 4000, ram_max_in_gib: 8, ephemeral_storage_in_gib: null, disable_buildkit_cache: false, skip_git_submodules: false });
    const status = await t.request('GET', `/job/${j.id}/status`, { token: org.token });
    assert.equal(status.body.service_deployment_status, 'NEVER_DEPLOYED');
  });

  test('a lifecycle job from docker with every seed member echoed; get, list, edit, delete round-trip', async () => {
    const body = {
      name: 'migrate', description: 'db migrations', cpu: 250, memory: 256, gpu: 0, ephemeral_storage_in_gib: 2, max_nb_restart: 1,
      max_duration_seconds: 600, auto_preview: false, port: 8080,
      healthchecks: { readiness_probe: { type: { http: { path: '/health', scheme: 'HTTP', port: 8080 } } }, liveness_probe: { type: { grpc: { service: 'health' } } } },
      source: { image: null, docker: { git_repository: { url: 'https://github.com/acme/db.git', branch: 'main' }, dockerfile_path: 'Dockerfile.migrate', dockerfile_raw: null, docker_target_build_stage: 'run' } },
      schedule: { on_start: { arguments: ['migrate', 'up'], entrypoint: '/bin/tool' }, on_stop: null, on_delete: { arguments: ['migrate', 'down'] }, lifecycle_type: 'GENERIC' },
      auto_deploy: true, annotations_groups: [], labels_groups: [], icon_uri: 'app://qovery-console/lifecycle-job', cpu_architecture: 'AMD64',
      build_settings: { timeout_max_sec: 600, ram_max_in_gib: 2 },
    };
    const r = await create(body);
    assert.equal(r.status, 201, r.raw);
    const j = r.body;
    assert.equal(j.job_type, 'LIFECYCLE');
    assert.deepEqual(j.schedule, { on_start: { arguments: ['migrate', 'up'], entrypoint: '/bin/tool' }, on_stop: null, on_delete: { arguments: ['migrate', 'down'], entrypoint: null }, lifecycle_type: 'GENERIC' });
    assert.equal(j.source.docker.git_repository.url, 'https://github.com/acme/db.git');
    assert.equal(j.source.docker.dockerfile_path, 'Dockerfile.migrate');
    assert.equal(j.source.docker.docker_target_build_stage, 'run');
    for (const k of ['description', 'cpu', 'memory', 'ephemeral_storage_in_gib', 'max_nb_restart', 'max_duration_seconds', 'auto_preview', 'port', 'auto_deploy', 'icon_uri', 'cpu_architecture'] as const) {
      assert.deepEqual(j[k], body[k], k);
    }
    assert.deepEqual(j.healthchecks.liveness_probe.type, { grpc: { service: 'health', port: 8080 } }, 'probe port defaults to the job port');
    assert.deepEqual(j.build_settings, { timeout_max_sec: 600, cpu_max_in_milli: 4000, ram_max_in_gib: 2, ephemeral_storage_in_gib: null, disable_buildkit_cache: false, skip_git_submodules: false });
    const got = await t.request('GET', `/job/${j.id}`, { token: await org.tokenFor('VIEWER') });
    assert.deepEqual(got.body, j);
    const list = await t.request('GET', `/environment/${env.id}/job`, { token: org.token });
    assert.ok(list.body.results.some((x: { id: string }) => x.id === j.id));

    // build_settings replaced whole: omitted members back to defaults, not to current values
    const e1 = await t.request('PUT', `/job/${j.id}`, { token: await org.tokenFor('DEVOPS'), body: { build_settings: { cpu_max_in_milli: 2000, skip_git_submodules: true } } });
    assert.equal(e1.status, 200, e1.raw);
    assert.deepEqual(e1.body.build_settings, { timeout_max_sec: 1800, cpu_max_in_milli: 2000, ram_max_in_gib: 8, ephemeral_storage_in_gib: null, disable_buildkit_cache: false, skip_git_submodules: true });
    assert.equal(e1.body.memory, 256, 'other members keep their value');
    const settings = await t.request('GET', `/job/${j.id}/advancedSettings`, { token: org.token });
    assert.equal(settings.body['build.cpu_max_in_milli'], 2000, 'build_settings are the build.* advanced settings');
    // an edit without build_settings keeps them; switching to a cron schedule changes job_type
    const e2 = await t.request('PUT', `/job/${j.id}`, { token: org.token, body: serviceExamples.editJob });
    assert.equal(e2.body.job_type, 'CRON');
    assert.deepEqual([e2.body.schedule.cronjob.scheduled_at, e2.body.schedule.cronjob.timezone],
      [serviceExamples.editJob.schedule.cronjob.scheduled_at, serviceExamples.editJob.schedule.cronjob.timezone]);
    assert.equal(e2.body.build_settings.cpu_max_in_milli, 2000);
    assert.equal((await t.request('DELETE', `/job/${j.id}`, { token: org.token })).status, 204);
    expectErrorBody(await t.request('GET', `/job/${j.id}`, { token: org.token }), 404);
  });

  test('schedule rules: neither kind, both kinds, invalid cron, invalid time zone are 400', async () => {
    const msg = async (schedule: unknown) => expectErrorBody(await create({ ...cronBody, name: 'bad-schedule', schedule }), 400).message;
    assert.match(await msg({}), /a cron job needs cronjob, a lifecycle job at least one of on_start, on_stop, on_delete/);
    assert.match(await msg({ on_start: null, cronjob: null }), /a cron job needs cronjob/);
    assert.match(await msg({ cronjob: { scheduled_at: '0 3 * * *' }, on_start: { arguments: [] } }), /a cron job fills only cronjob/);
    assert.match(await msg({ cronjob: { scheduled_at: '0 3 * *' } }), /^schedule.cronjob.scheduled_at: /);
    assert.match(await msg({ cronjob: { scheduled_at: '61 * * * *' } }), /^schedule.cronjob.scheduled_at: /);
    assert.match(await msg({ cronjob: { scheduled_at: '0 3 * * *', timezone: 'Mars/Olympus' } }), /schedule.cronjob.timezone: "Mars\/Olympus" is not an IANA time zone/);
    assert.match(expectErrorBody(await create({ name: 'no-schedule', source: cronBody.source }), 400).message, /schedule is required/);
  });

  test('source rules: exactly one of image/docker, registry of the organization, docker needs a repository or a raw Dockerfile', async () => {
    const msg = async (source: unknown) => expectErrorBody(await create({ ...cronBody, name: 'bad-source', source }), 400).message;
    assert.equal(await msg({}), 'source must hold exactly one of image, docker');
    assert.equal(await msg({ image: { image_name: 'a', tag: 'b', registry_id: registryId }, docker: { dockerfile_raw: 'FROM alpine' } }), 'source must hold exactly one of image, docker');
    assert.match(await msg({ docker: { dockerfile_path: 'Dockerfile' } }), /source.docker needs a git_repository or a dockerfile_raw/);
    const stranger = await seedOrganization(t);
    const foreign = await seedRegistry(t, stranger.id, 'theirs');
    assert.match(await msg({ image: { image_name: 'a', tag: 'b', registry_id: foreign } }), /source.image.registry_id .* is not a container registry of this organization/);
    const raw = await create({ ...cronBody, name: 'raw-dockerfile', source: { docker: { dockerfile_raw: 'FROM alpine\nCMD ["true"]' } } });
    assert.equal(raw.status, 201, raw.raw);
    assert.equal(raw.body.source.docker.git_repository, null);
    assert.equal(raw.body.auto_deploy, true);
  });

  test('numeric minima, port, cpu_architecture, cluster maxima, groups', async () => {
    const msg = async (extra: Record<string, unknown>) => expectErrorBody(await create({ ...cronBody, name: 'bad-number', ...extra }), 400).message;
    assert.match(await msg({ gpu: -1 }), /^gpu /);
    assert.match(await msg({ ephemeral_storage_in_gib: -1 }), /^ephemeral_storage_in_gib /);
    assert.match(await msg({ max_nb_restart: -1 }), /^max_nb_restart /);
    assert.match(await msg({ max_duration_seconds: -5 }), /^max_duration_seconds /);
    assert.match(await msg({ port: 0 }), /^port /);
    assert.match(await msg({ cpu_architecture: 'RISCV' }), /cpu_architecture/);
    assert.match(await msg({ build_settings: { timeout_max_sec: -1 } }), /build_settings.timeout_max_sec/);
    assert.match(await msg({ cpu: 2001 }), /cpu 2001 exceeds the cluster's maximum of 2000 millicores/);
    assert.match(await msg({ memory: 5000 }), /exceeds the cluster's maximum of 4096 MB/);
    assert.match(await msg({ gpu: 1 }), /gpu 1 exceeds the cluster's maximum of 0/);
    assert.match(await msg({ annotations_groups: [{ id: '00000000-0000-4000-8000-000000000009' }] }), /unknown annotations group/);
    const nullPort = await create({ ...cronBody, name: 'null-port', port: null, max_nb_restart: 0, max_duration_seconds: 0 });
    assert.equal(nullPort.status, 201, nullPort.raw);
    assert.equal(nullPort.body.port, null);
  });

  test('a name is unique across service types of the environment, case-insensitively (409)', async () => {
    const app = await t.request('POST', `/environment/${env.id}/application`, { token: org.token, body: { name: 'Shared-Name', git_repository: { url: 'https://github.com/a/b' } } });
    assert.equal(app.status, 201, app.raw);
    const clash = await create({ ...cronBody, name: 'shared-NAME' });
    assert.equal(expectErrorBody(clash, 409).message, 'Service name is already taken in this environment');
    const dbClash = await t.request('POST', `/environment/${env.id}/database`, { token: org.token, body: { name: 'SHARED-name', type: 'REDIS', version: '7', mode: 'CONTAINER' } });
    expectErrorBody(dbClash, 409);
  });

  test('authorization: VIEWER reads but cannot create; another organization 403; unknown environment 404', async () => {
    expectErrorBody(await create({ ...cronBody, name: 'viewer-job' }, await org.tokenFor('VIEWER')), 403);
    const stranger = await seedOrganization(t);
    expectErrorBody(await create({ ...cronBody, name: 'stranger-job' }, stranger.token), 403);
    expectErrorBody(await t.request('POST', '/environment/00000000-0000-4000-8000-000000000000/job', { token: org.token, body: cronBody }), 404);
    expectErrorBody(await t.request('POST', `/environment/${env.id}/job`, { body: cronBody }), 401);
  });
});
