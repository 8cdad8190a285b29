// The Docker engine with the other resources: a CONTAINER-mode PostgreSQL whose master
// credentials really log in from the environment's network, a container pulled from an
// authenticated registry, a cron job that runs on time exactly once per occurrence (two workers
// on PostgreSQL), lifecycle jobs, and deletion removing containers, volumes and images.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildImage } from '../../src/engine/docker/build.ts';
import { networkName } from '../../src/engine/docker/naming.ts';
import { busyboxImage, databaseImage, NO_DOCKER, startTestRegistry, testDocker, type TestRegistry } from '../support/docker.ts';
import { hostOf, removeEnvironment, startEngineBerth, viaIngress, type EngineBerth } from '../support/engine-berth.ts';
import { eventually } from '../support/harness.ts';

const found = await testDocker();

describe('docker engine: databases, registry images, jobs', { skip: found ? false : NO_DOCKER, timeout: 1_200_000 }, () => {
  let berth: EngineBerth;
  let registry: TestRegistry;
  let envId: string;
  let registryId: string;
  const docker = found?.docker!;

  before(async () => {
    const base = await busyboxImage(docker);
    await databaseImage(docker, 'POSTGRESQL', '15');
    registry = await startTestRegistry(docker);
    const dir = await mkdtemp(join(tmpdir(), 'berth-test-image-'));
    await writeFile(join(dir, 'Dockerfile'), `FROM ${base}\nCMD ["sh", "-c", "mkdir -p /w && echo from the registry > /w/index.html && exec httpd -f -p 3000 -h /w"]\n`);
    await buildImage(docker, { contextDir: dir, dockerfilePath: null, tag: 'berth-test/hello:1', buildArgs: {}, labels: { 'berth-test': 'hello' } }, async () => {}, AbortSignal.timeout(60_000));
    await rm(dir, { recursive: true, force: true });
    await registry.push('berth-test/hello:1', 'hello', '1');
    await registry.push(base, 'tools', '1');
    berth = await startEngineBerth(found!.host);
    const org = (await berth.api('GET', '/organization')).body.results[0].id;
    const project = (await berth.api('POST', `/organization/${org}/project`, { name: `resources-${Date.now()}` })).body;
    envId = (await berth.api('POST', `/project/${project.id}/environment`, { name: 'dev', mode: 'DEVELOPMENT' })).body.id;
    const reg = await berth.api('POST', `/organization/${org}/containerRegistry`, {
      name: 'local', kind: 'GENERIC_CR', url: `http://${registry.address}`, config: { username: registry.username, password: registry.password },
    });
    assert.equal(reg.status, 201, JSON.stringify(reg.body));
    registryId = reg.body.id;
  }, { timeout: 900_000 });
  after(async () => {
    await removeEnvironment(berth, docker, envId);
    await berth?.close();
    await registry?.close();
  });

  const containersOf = (serviceId: string) => docker.listContainers({ all: true, filters: { label: [`berth.service_id=${serviceId}`] } });

  test('a PostgreSQL database runs on a volume and its master credentials log in', async () => {
    const created = await berth.api('POST', `/environment/${envId}/database`, { name: 'main-db', type: 'POSTGRESQL', mode: 'CONTAINER', version: '15' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const final = await berth.settle((await berth.api('POST', `/database/${created.body.id}/deploy`)).body.id);
    assert.equal(final.status, 'DEPLOYED', final.message);
    const credentials = (await berth.api('GET', `/database/${created.body.id}/masterCredentials`)).body;
    // a client on the environment's network, as an application would connect
    const psql = async (sql: string): Promise<string> => {
      const client = await docker.createContainer({
        Image: 'postgres:15', Entrypoint: ['psql'], Env: [`PGPASSWORD=${credentials.password}`],
        Cmd: ['-h', credentials.host, '-p', String(credentials.port), '-U', credentials.login, '-d', 'postgres', '-tAc', sql],
        HostConfig: { NetworkMode: networkName(envId) }, Labels: { 'berth-test': 'psql' },
      });
      const output = await client.attach({ stream: true, stdout: true, stderr: true });
      let text = '';
      output.on('data', (d: Buffer) => { text += d.toString('utf8'); });
      await client.start();
      const { StatusCode } = await client.wait() as { StatusCode: number };
      await client.remove({ force: true, v: true }); // postgres:15 declares a VOLUME
      assert.equal(StatusCode, 0, text);
      return text;
    };
    assert.match(await psql('select 40 + 2'), /42/);
    // the data outlives its replica: a redeploy replaces the container, not the volume
    await psql(`create table kept (v text); insert into kept values ('still here')`);
    const redeployed = await berth.settle((await berth.api('POST', `/database/${created.body.id}/redeploy`)).body.id);
    assert.equal(redeployed.status, 'DEPLOYED', redeployed.message);
    assert.match(await eventually(() => psql('select v from kept').catch(() => null), 60_000, 500), /still here/);
    const volumes = await docker.listVolumes({ filters: { label: [`berth.service_id=${created.body.id}`] } });
    assert.equal(volumes.Volumes?.length, 1, 'the data lives on a named volume');

    const managed = await berth.api('POST', `/environment/${envId}/database`, { name: 'cloud-db', type: 'POSTGRESQL', mode: 'MANAGED', version: '15' });
    const refused = await berth.settle((await berth.api('POST', `/database/${managed.body.id}/deploy`)).body.id);
    assert.equal(refused.status, 'DEPLOYMENT_ERROR');
    assert.match(refused.message, /MANAGED databases need a cloud provider.*CONTAINER mode/);

    assert.equal((await berth.api('DELETE', `/database/${created.body.id}`)).status, 204);
    await eventually(async () => (await containersOf(created.body.id)).length === 0, 60_000);
    await eventually(async () => ((await docker.listVolumes({ filters: { label: [`berth.service_id=${created.body.id}`] } })).Volumes ?? []).length === 0, 30_000);
  });

  test('a container is pulled from an authenticated registry with the registry\'s credentials', async () => {
    const created = await berth.api('POST', `/environment/${envId}/container`, {
      name: 'hello', registry_id: registryId, image_name: 'hello', tag: '1', ports: [{ internal_port: 3000, publicly_accessible: true }], memory: 32, cpu: 100,
      min_running_instances: 2, max_running_instances: 2,
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    await berth.api('POST', `/container/${created.body.id}/secret`, { key: 'TLS_KEY', value: 'very secret', mount_path: '/etc/hello/key.pem' });
    await docker.getImage(`${registry.address}/hello:1`).remove({ force: true }).catch(() => {});
    const d = await berth.api('POST', `/container/${created.body.id}/deploy`);
    const final = await berth.settle(d.body.id);
    assert.equal(final.status, 'DEPLOYED', final.message);
    const lines = (await berth.api('GET', `/deployment/${d.body.id}/log?page_size=100`)).body.results.map((l: any) => l.message);
    assert.ok(lines.some((l: string) => /Pull/i.test(l)), 'pulled from the registry');
    const link = (await berth.api('GET', `/container/${created.body.id}/link`)).body;
    const url = (link.results ?? link).find((l: any) => l.is_default).url;
    assert.deepEqual(await viaIngress(berth.ingressPort, hostOf(url)), { status: 200, body: 'from the registry\n' });
    const running = await docker.listContainers({ filters: { label: [`berth.service_id=${created.body.id}`] } });
    assert.equal(running.length, 2, 'min_running_instances replicas');
    const inspected = await docker.getContainer(running[0]!.Id).inspect();
    const exec = await docker.getContainer(running[0]!.Id).exec({ Cmd: ['cat', '/etc/hello/key.pem'], AttachStdout: true, AttachStderr: true });
    const stream = await exec.start({ hijack: true, stdin: false });
    let file = '';
    stream.on('data', (d: Buffer) => { file += d.toString('utf8'); });
    await new Promise((r) => stream.on('end', r));
    assert.match(file, /very secret/, 'a secret with a mount_path is a file in the container');
    assert.ok(!inspected.Config.Env.some((e) => e.includes('very secret')), 'and not in the environment');
    assert.equal(inspected.HostConfig.Memory, 32 * 1024 * 1024, 'memory limit in MiB');
    assert.equal(inspected.HostConfig.NanoCpus, 100_000_000, 'cpu limit in millicores');
    assert.equal(inspected.HostConfig.RestartPolicy?.Name, 'unless-stopped');
    assert.ok(!(inspected.Mounts ?? []).some((m) => m.Source?.includes('docker.sock')), 'never the Docker socket');
  });

  test('a replica failing its liveness probe is restarted by berth', async () => {
    const created = await berth.api('POST', `/environment/${envId}/container`, {
      name: 'flappy', registry_id: registryId, image_name: 'hello', tag: '1', ports: [{ internal_port: 3000, publicly_accessible: false }], memory: 32, cpu: 100,
      healthchecks: { liveness_probe: { type: { http: { path: '/missing', port: 3000 } }, period_seconds: 1, failure_threshold: 2, timeout_seconds: 1, initial_delay_seconds: 0 } },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal((await berth.settle((await berth.api('POST', `/container/${created.body.id}/deploy`)).body.id)).status, 'DEPLOYED');
    await eventually(async () => (await berth.api('GET', `/container/${created.body.id}/log`)).body.results
      .some((l: any) => /liveness probe failed 2 time\(s\) in a row \(GET \/missing answered 404\): replica restarted/.test(l.message)), 60_000, 1000);
    assert.equal((await berth.api('DELETE', `/container/${created.body.id}`)).status, 204);
  });

  test('a cron job runs on time, once per occurrence, even with two workers', async () => {
    if (berth.env.DATABASE_URL) await berth.extra('worker');
    const created = await berth.api('POST', `/environment/${envId}/job`, {
      name: 'tick', source: { image: { image_name: 'tools', tag: '1', registry_id: registryId } },
      schedule: { cronjob: { scheduled_at: '* * * * *', entrypoint: 'sh', arguments: ['-c', 'echo tick from $BERTH_SERVICE_NAME'] } },
      max_duration_seconds: 30, memory: 32, cpu: 100,
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const jobId = created.body.id;
    assert.equal((await berth.settle((await berth.api('POST', `/job/${jobId}/deploy`)).body.id)).status, 'DEPLOYED');
    const run = await eventually(async () => {
      const runs = (await berth.api('GET', `/job/${jobId}/run`)).body.results;
      return runs.find((r: any) => r.status === 'SUCCEEDED' || r.status === 'FAILED');
    }, 150_000, 1000);
    assert.equal(run.status, 'SUCCEEDED', run.message);
    assert.equal(run.exit_code, 0);
    assert.equal(run.trigger, 'CRON');
    assert.equal(new Date(run.scheduled_for).getUTCSeconds(), 0, 'an occurrence of the schedule');
    assert.ok(Date.parse(run.started_at) - Date.parse(run.scheduled_for) < 20_000, `started on time (${run.scheduled_for} → ${run.started_at})`);
    const log = (await berth.api('GET', `/job/${jobId}/run/${run.id}/log`)).body.results.map((l: any) => l.message);
    assert.ok(log.includes('tick from tick'), JSON.stringify(log));
    // the next slot passes: still one run for this occurrence
    await new Promise((r) => setTimeout(r, 5000));
    const same = (await berth.api('GET', `/job/${jobId}/run?page_size=100`)).body.results.filter((r: any) => r.scheduled_for === run.scheduled_for);
    assert.equal(same.length, 1);
    assert.equal((await berth.settle((await berth.api('POST', `/job/${jobId}/stop`)).body.id)).status, 'STOPPED');
  });

  test('lifecycle jobs: on_start at deploy with retries and max_duration_seconds, on_stop at stop', async () => {
    const created = await berth.api('POST', `/environment/${envId}/job`, {
      name: 'migrate', source: { image: { image_name: 'tools', tag: '1', registry_id: registryId } }, max_nb_restart: 1, max_duration_seconds: 2,
      schedule: { on_start: { entrypoint: 'sh', arguments: ['-c', 'echo migrating; test -f /tmp/never && exit 0; sleep 30'] } }, memory: 32, cpu: 100,
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const d = await berth.api('POST', `/job/${created.body.id}/deploy`);
    const final = await berth.settle(d.body.id);
    assert.equal(final.status, 'DEPLOYMENT_ERROR');
    assert.match(final.message, /killed after max_duration_seconds \(2 s\) after 2 attempt\(s\)/);
    const lines = (await berth.api('GET', `/deployment/${d.body.id}/log?page_size=100`)).body.results.map((l: any) => l.message);
    assert.equal(lines.filter((l: string) => l === 'migrating').length, 2, 'one line per attempt');
    assert.equal((await containersOf(created.body.id)).length, 0, 'run containers are removed');

    const hooks = await berth.api('POST', `/environment/${envId}/job`, {
      name: 'hooks', source: { image: { image_name: 'tools', tag: '1', registry_id: registryId } }, memory: 32, cpu: 100,
      schedule: { on_start: { entrypoint: 'sh', arguments: ['-c', 'echo seeding $BERTH_SERVICE_NAME'] }, on_stop: { entrypoint: 'sh', arguments: ['-c', 'echo draining'] } },
    });
    const started = await berth.api('POST', `/job/${hooks.body.id}/deploy`);
    assert.equal((await berth.settle(started.body.id)).status, 'DEPLOYED');
    const stopped = await berth.api('POST', `/job/${hooks.body.id}/stop`);
    assert.equal((await berth.settle(stopped.body.id)).status, 'STOPPED');
    const startLines = (await berth.api('GET', `/deployment/${started.body.id}/log?page_size=100`)).body.results.map((l: any) => l.message);
    const stopLines = (await berth.api('GET', `/deployment/${stopped.body.id}/log?page_size=100`)).body.results.map((l: any) => l.message);
    assert.ok(startLines.includes('seeding hooks'), JSON.stringify(startLines));
    assert.ok(stopLines.includes('draining'), JSON.stringify(stopLines));
  });
});
