// The advanced settings the docker engine applies to deployments, builds and jobs (issue 30,
// decision 0336), on the real daemon: build limits reach the builder's steps and the cache can be
// turned off; a read-only root filesystem refuses writes outside /tmp; a post-start command runs
// in each new replica and its failure fails the deployment with its output while the old version
// keeps serving; a pre-stop command's side effect is seen before the old replica stops;
// RollingUpdate leaves no gap under steady load and Recreate does; the grace period is the stop
// timeout; a build over build.timeout_max_sec is stopped and fails saying so; and a cron job's
// concurrency policy and history limits act on its run containers.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { runJobToCompletion } from '../../src/engine/docker/jobs.ts';
import { ensureEnvironmentNetwork } from '../../src/engine/docker/networks.ts';
import type { RuntimePlan } from '../../src/engine/plan.ts';
import { serviceSettings } from '../../src/engine/settings.ts';
import { busyboxImage, NO_DOCKER, startGitServer, testDocker, type GitServer } from '../support/docker.ts';
import { hostOf, removeEnvironment, startEngineBerth, viaIngress, type EngineBerth } from '../support/engine-berth.ts';
import { eventually } from '../support/harness.ts';
import { steadyLoad, type LoadResult } from '../support/http-load.ts';

const found = await testDocker();
const docker = found?.docker!;

// the build step prints its own cgroup limits (cgroup v1, else v2)
const web = (base: string) => `FROM ${base}
RUN echo "build limits: memory $(cat /sys/fs/cgroup/memory/memory.limit_in_bytes 2>/dev/null || cat /sys/fs/cgroup/memory.max) cpu $(cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us 2>/dev/null || cut -d' ' -f1 /sys/fs/cgroup/cpu.max)"
CMD ["sh", "-c", "mkdir -p /tmp/www && echo \\"$GREETING\\" > /tmp/www/index.html && exec httpd -f -p 8080 -h /tmp/www"]
`;
// a shell that handles SIGTERM slowly: only the grace period's SIGKILL ends it
const slowStop = (base: string) => `FROM ${base}
CMD ["sh", "-c", "trap 'echo stopping slowly; sleep 60' TERM; mkdir -p /tmp/www && echo slow > /tmp/www/index.html; httpd -f -p 8080 -h /tmp/www & wait"]
`;

/** GET straight to a replica's published loopback port: the status, or 0 when nothing answers */
const direct = (port: number, path: string) => new Promise<number>((resolve) => {
  const req = http.get({ host: '127.0.0.1', port, path, timeout: 2000 }, (res) => { res.resume(); resolve(res.statusCode ?? 0); });
  req.on('error', () => resolve(0));
  req.on('timeout', () => req.destroy());
});

describe('docker engine: deployment, build and security settings', { skip: found ? false : NO_DOCKER, timeout: 600_000 }, () => {
  let berth: EngineBerth;
  let git: GitServer;
  let envId: string;
  let appId: string;
  let host: string;

  before(async () => {
    const base = await busyboxImage(docker);
    git = await startGitServer();
    await git.createRepo('web', { Dockerfile: web(base) });
    await git.createRepo('slow-stop', { Dockerfile: slowStop(base) });
    await git.createRepo('slow-build', { Dockerfile: `FROM ${base}\nRUN echo building slowly && sleep 60 # berth-build-timeout\n` });
    berth = await startEngineBerth(found!.host);
    const org = (await berth.api('GET', '/organization')).body.results[0].id;
    const project = (await berth.api('POST', `/organization/${org}/project`, { name: `settings-${Date.now()}` })).body;
    envId = (await berth.api('POST', `/project/${project.id}/environment`, { name: 'dev', mode: 'DEVELOPMENT' })).body.id;
    await berth.api('POST', `/environment/${envId}/environmentVariable`, { key: 'GREETING', value: 'v1' });
  });
  after(async () => {
    await removeEnvironment(berth, docker, envId);
    await berth?.close();
    await git?.close();
  });

  const settings = async (id: string, patch: Record<string, unknown>) => {
    const r = await berth.api('PUT', `/application/${id}/advancedSettings`, patch);
    assert.equal(r.status, 201, JSON.stringify(r.body));
  };
  const create = async (name: string, repo: string) => {
    const r = await berth.api('POST', `/environment/${envId}/application`, {
      name, git_repository: { url: `${git.baseUrl}/${repo}.git`, branch: 'main' }, ports: [{ internal_port: 8080, publicly_accessible: true }], cpu: 250, memory: 64,
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return r.body.id as string;
  };
  const deploy = async (id: string, action: 'deploy' | 'redeploy' | 'stop') => {
    const d = await berth.api('POST', `/application/${id}/${action}`);
    assert.equal(d.status, 202, JSON.stringify(d.body));
    const final = await berth.settle(d.body.id);
    const lines: string[] = (await berth.api('GET', `/deployment/${d.body.id}/log?tail=1000`)).body.results.map((l: any) => l.message);
    return { final, lines };
  };
  const replicas = (id: string) => docker.listContainers({ filters: { label: [`berth.service_id=${id}`, 'berth.role=replica'] } });
  const exec = async (id: string, cmd: string[]) => {
    const e = await docker.getContainer(id).exec({ Cmd: cmd, AttachStdout: true, AttachStderr: true });
    const stream = await e.start({ hijack: true, stdin: false });
    let output = '';
    stream.on('data', (d: Buffer) => { output += d.toString('utf8'); });
    await new Promise((r) => stream.on('end', r));
    return { code: (await e.inspect()).ExitCode, output };
  };
  /** keep-alive clients in 2-second rounds while `during` runs */
  const underLoad = async <T>(during: () => Promise<T>): Promise<{ result: T; failures: LoadResult['failures']; ok: number }> => {
    const rounds: LoadResult[] = [];
    let stop = false;
    const load = (async () => {
      while (!stop) rounds.push(await steadyLoad({ address: `http://127.0.0.1:${berth.ingressPort}`, host, total: 200, concurrency: 8, durationMs: 2000 }));
    })();
    const result = await during();
    stop = true;
    await load;
    return { result, failures: rounds.flatMap((r) => r.failures), ok: rounds.reduce((n, r) => n + r.ok, 0) };
  };

  test('build limits reach the build steps; a read-only root refuses writes outside /tmp; post-start runs in the replica', async () => {
    appId = await create('web', 'web');
    await settings(appId, {
      'build.ram_max_in_gib': 1, 'build.cpu_max_in_milli': 500, 'security.read_only_root_filesystem': true,
      'deployment.lifecycle.post_start_exec_command': ['sh', '-c', 'mkdir -p /tmp/www && echo started > /tmp/www/post-start.txt'],
    });
    const { final, lines } = await deploy(appId, 'deploy');
    assert.equal(final.status, 'DEPLOYED', final.message);
    assert.ok(lines.includes(`build limits: memory ${1024 ** 3} cpu 50000`), `the build step's cgroup: ${lines.find((l) => l.startsWith('build limits'))}`);
    const links = (await berth.api('GET', `/application/${appId}/link`)).body;
    host = hostOf((links.results ?? links).find((l: any) => l.is_default).url);
    assert.deepEqual(await viaIngress(berth.ingressPort, host), { status: 200, body: 'v1\n' }, 'it serves from its writable /tmp');
    assert.deepEqual(await viaIngress(berth.ingressPort, host, '/post-start.txt'), { status: 200, body: 'started\n' }, 'the post-start command ran in it');
    const [replica] = await replicas(appId);
    const inspected = await docker.getContainer(replica!.Id).inspect();
    assert.equal(inspected.HostConfig.ReadonlyRootfs, true);
    assert.ok(Object.keys(inspected.HostConfig.Tmpfs ?? {}).includes('/tmp'));
    const refused = await exec(replica!.Id, ['touch', '/etc/written']);
    assert.notEqual(refused.code, 0);
    assert.match(refused.output, /Read-only file system/);
    assert.equal((await exec(replica!.Id, ['touch', '/tmp/written'])).code, 0, '/tmp is writable');
  });

  test('RollingUpdate: a redeploy under steady load fails no request; the cache is used unless disabled', async () => {
    const { result: { final, lines }, failures, ok } = await underLoad(() => deploy(appId, 'redeploy'));
    assert.equal(final.status, 'DEPLOYED', final.message);
    assert.deepEqual(failures, [], `failed requests during a rolling update (${ok} ok)`);
    assert.ok(ok > 100, `steady load (${ok})`);
    assert.ok(lines.some((l) => /Using cache/.test(l)) && !lines.some((l) => l.startsWith('build limits')), 'a cached build step does not run again');
    assert.ok(lines.some((l) => /has no handler for SIGTERM, so it is stopped at once/.test(l)), 'httpd as PID 1 cannot receive SIGTERM: not waited for');
    await settings(appId, { 'build.disable_buildkit_cache': true });
    const uncached = await deploy(appId, 'redeploy');
    assert.equal(uncached.final.status, 'DEPLOYED', uncached.final.message);
    assert.ok(uncached.lines.some((l) => l.startsWith('build limits')) && !uncached.lines.some((l) => /Using cache/.test(l)), 'no cache: the step runs again');
  });

  test('a pre-stop command runs in the old replica before it is stopped', async (t) => {
    await settings(appId, { 'deployment.lifecycle.pre_stop_exec_command': ['sh', '-c', 'echo draining > /tmp/www/pre-stop.txt; sleep 2'] });
    const [old] = await replicas(appId);
    const port = old!.Ports.find((p) => p.PrivatePort === 8080 && p.IP === '127.0.0.1')!.PublicPort;
    assert.equal(await direct(port, '/pre-stop.txt'), 404, 'not before the rollout');
    const rollout = deploy(appId, 'redeploy');
    // the old replica, reached on its own loopback port: the file appears while it still serves
    const seenAt = await eventually(async () => (await direct(port, '/pre-stop.txt')) === 200 && Date.now(), 120_000, 50);
    const goneAt = await eventually(async () => (await direct(port, '/')) === 0 && Date.now(), 60_000, 50);
    const { final, lines } = await rollout;
    assert.equal(final.status, 'DEPLOYED', final.message);
    assert.ok(goneAt - seenAt >= 1500, `the replica stopped ${goneAt - seenAt} ms after its pre-stop command wrote its file (it sleeps 2 s)`);
    t.diagnostic(`stopped ${goneAt - seenAt} ms after the pre-stop command's file was served; ${lines.slice(-4).join(' / ')}`);
    assert.ok(!lines.some((l) => /pre-stop command .* (exited|could not run)/.test(l)), JSON.stringify(lines.slice(-8)));
  });

  test('Recreate: the old version stops before the new one starts, which leaves a gap under load', async (t) => {
    await settings(appId, { 'deployment.update_strategy.type': 'Recreate', 'deployment.lifecycle.pre_stop_exec_command': [] });
    const { result: { final, lines }, failures, ok } = await underLoad(() => deploy(appId, 'redeploy'));
    assert.equal(final.status, 'DEPLOYED', final.message);
    assert.ok(failures.length > 0, `requests failed while nothing served (${ok} ok)`);
    t.diagnostic(`Recreate: ${failures.length} request(s) failed (${[...new Set(failures.map((f) => f.what.slice(0, 3)))].join(', ')}), ${ok} ok`);
    assert.ok(failures.every((f) => /^(404|502|503) |ECONNRESET|ECONNREFUSED|socket hang up/.test(f.what)), JSON.stringify(failures.slice(0, 3)));
    assert.ok(lines.some((l) => l.startsWith('Recreate: stopping the 1 replica(s) of the previous version')));
    assert.equal((await viaIngress(berth.ingressPort, host)).status, 200);
  });

  test('a failing post-start command fails the deployment with its output; the old version keeps serving', async () => {
    await settings(appId, {
      'deployment.update_strategy.type': 'RollingUpdate', 'deployment.lifecycle.post_start_exec_command': ['sh', '-c', 'echo post-start says no >&2; exit 3'],
    });
    const before = (await replicas(appId)).map((c) => c.Id);
    const { final } = await deploy(appId, 'redeploy');
    assert.equal(final.status, 'DEPLOYMENT_ERROR');
    assert.match(final.message, /post-start command \(deployment\.lifecycle\.post_start_exec_command\) exited with code 3: post-start says no; the previous version keeps serving/);
    assert.deepEqual((await replicas(appId)).map((c) => c.Id), before);
    assert.equal((await viaIngress(berth.ingressPort, host)).status, 200);
  });

  test('the grace period is the stop timeout: a slow SIGTERM handler is killed after it', async () => {
    const id = await create('slow-stop', 'slow-stop');
    await settings(id, { 'deployment.termination_grace_period_seconds': 3 });
    assert.equal((await deploy(id, 'deploy')).final.status, 'DEPLOYED');
    const [replica] = await replicas(id);
    assert.equal(((await docker.getContainer(replica!.Id).inspect()).Config as { StopTimeout?: number }).StopTimeout, 3, 'docker stop without -t uses it too');
    const began = Date.now();
    const { final } = await deploy(id, 'stop');
    const took = Date.now() - began;
    assert.equal(final.status, 'STOPPED', final.message);
    assert.ok(took >= 3000 && took < 10_000, `stopped after ${took} ms (grace 3 s, previously 10 s)`);
    assert.equal((await docker.getContainer(replica!.Id).inspect()).State.ExitCode, 137, 'killed when the grace period ended');
  });

  test('a build over build.timeout_max_sec is stopped and fails saying so', async () => {
    const id = await create('slow-build', 'slow-build');
    await settings(id, { 'build.timeout_max_sec': 3 });
    const began = Date.now();
    const { final, lines } = await deploy(id, 'deploy');
    assert.equal(final.status, 'BUILD_ERROR');
    assert.equal(final.message, 'The build took longer than build.timeout_max_sec (3 s) and was stopped');
    assert.ok(lines.includes('building slowly'));
    assert.ok(Date.now() - began < 30_000);
    // the builder's step container goes with the closed request
    await eventually(async () => !(await docker.listContainers()).some((c) => c.Command.includes('berth-build-timeout')), 20_000, 200);
  });
});

describe('docker engine: a cron job\'s concurrency policy and run history', { skip: found ? false : NO_DOCKER, timeout: 120_000 }, () => {
  const ids = { serviceId: crypto.randomUUID(), environmentId: crypto.randomUUID(), projectId: 'p', organizationId: 'o' };
  let image: string;
  before(async () => {
    image = await busyboxImage(docker);
    await ensureEnvironmentNetwork(docker, ids);
  });
  after(async () => {
    for (const c of await docker.listContainers({ all: true, filters: { label: [`berth.service_id=${ids.serviceId}`] } })) {
      await docker.getContainer(c.Id).remove({ force: true }).catch(() => {});
    }
    await docker.getNetwork(`berth-env-${ids.environmentId}`).remove().catch(() => {});
  });

  const plan: RuntimePlan = {
    source: null, env: {}, files: [], cpuMilli: 100, memoryMiB: 32, replicas: 1, ports: [], readiness: null, liveness: null,
    entrypoint: null, args: [], volumes: [], aliases: [], database: null,
    job: { jobType: 'CRON', maxDurationSeconds: 60, maxRestarts: 0, cron: null, onStart: null, onStop: null, onDelete: null },
  };
  const run = (runId: string, script: string, advanced: Record<string, unknown>) => runJobToCompletion({
    docker, ids, slug: 'tick', runId, image, plan, command: { entrypoint: 'sh', args: ['-c', script] },
    settings: serviceSettings({ 'deployment.termination_grace_period_seconds': 1, ...advanced }), cron: true,
  }, async () => {}, AbortSignal.timeout(60_000));
  const kept = async () => (await docker.listContainers({ all: true, filters: { label: [`berth.service_id=${ids.serviceId}`] } })).map((c) => c.Labels['berth.run_id']).sort();
  const running = () => eventually(async () => (await docker.listContainers({ filters: { label: [`berth.service_id=${ids.serviceId}`] } })).length > 0, 10_000, 50);

  test('Forbid skips an occurrence while a run is running; Replace stops it; the history keeps one success and one failure', async () => {
    const first = run('run-a', 'sleep 2; echo a', { 'cronjob.concurrency_policy': 'Forbid' });
    await running();
    const skipped = await run('run-b', 'echo b', { 'cronjob.concurrency_policy': 'Forbid' });
    assert.deepEqual(skipped, { exitCode: 0, attempts: 0, reason: 'skipped: run run-a was still running (cronjob.concurrency_policy Forbid)', skipped: true });
    assert.deepEqual(await first, { exitCode: 0, attempts: 1, reason: null });

    const long = run('run-c', 'trap "exit 143" TERM; sleep 30 & wait', { 'cronjob.concurrency_policy': 'Forbid' });
    await eventually(async () => (await docker.listContainers({ filters: { label: [`berth.run_id=run-c`] } })).length > 0, 10_000, 50);
    const replacing = await run('run-d', 'echo d', { 'cronjob.concurrency_policy': 'Replace' });
    assert.deepEqual(replacing, { exitCode: 0, attempts: 1, reason: null });
    const replaced = await long;
    assert.equal(replaced.reason, 'replaced by run run-d (cronjob.concurrency_policy Replace)');
    assert.notEqual(replaced.exitCode, 0);
    // success limit 1 (run-d, not run-a) and failure limit 1 (run-c): stopped containers kept for docker logs
    assert.deepEqual(await kept(), ['run-c', 'run-d']);
  });

  test('history limits of 0 keep nothing; a time to live removes a kept run after it', async () => {
    await run('run-e', 'echo e', { 'job.delete_ttl_seconds_after_finished': 1, 'cronjob.success_jobs_history_limit': 5 });
    assert.ok((await kept()).includes('run-e'));
    await eventually(async () => !(await kept()).includes('run-e'), 5000, 100);
    await run('run-f', 'exit 1', { 'cronjob.success_jobs_history_limit': 0, 'cronjob.failed_jobs_history_limit': 0 });
    assert.deepEqual(await kept(), []);
  });
});
