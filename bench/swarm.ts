// `npm run bench:swarm`: the swarm engine on a real three-node Swarm (test/support/swarm.ts).
// 1. Deploy of a prebuilt image (present on every node): POST /container/{id}/deploy → the app
//    answers through berth's ingress, against the raw `docker service create` of the same service
//    (overlay network, dnsrr, a host-mode port, limits) + wait until its task runs and answers on
//    its node's port, in the same run; interleaved rounds, the side going first rotating; medians
//    and the ratio (target ≤ 1.2×). A third side is the same raw service with the healthcheck berth
//    gives it (its readiness probe): like for like, what berth itself adds.
// 2. Reschedule after a node loss: a 3-replica service, every process of a worker running one of
//    its tasks killed; time until 3 tasks run again on the other nodes, and until berth reports it
//    RUNNING again. Needs root (namespaces), dockerd, haproxy and a test daemon at
//    BERTH_TEST_DOCKER_HOST or DOCKER_HOST; BENCH_ROUNDS (5).
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { defaultReadiness, loadDriverInternals } from '../src/engine/index.ts';
import { busyboxImage, testDocker } from '../test/support/docker.ts';
import { hostOf, startEngineBerth, viaIngress } from '../test/support/engine-berth.ts';
import { deploymentTimeline } from './deploy-timeline.ts';
import { median } from './measure.ts';
import { startSwarmCluster, swarmUnavailable } from '../test/support/swarm.ts';

const { buildImage, healthcheckOf } = await loadDriverInternals();
const run = promisify(execFile);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const IMAGE = 'berth-bench/hello:1';

const log = (line: string) => process.stderr.write(`[bench:swarm] ${line}\n`);

async function until(fn: () => Promise<boolean>, limitMs = 120_000, what = 'the condition'): Promise<void> {
  const end = Date.now() + limitMs;
  while (!(await fn().catch(() => false))) {
    if (Date.now() > end) throw new Error(`${what} never held`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const answers = async (address: string) => {
  const res = await fetch(`http://${address}/`, { signal: AbortSignal.timeout(1000) });
  await res.text();
  return res.status === 200;
};

const why = await swarmUnavailable();
if (why) throw new Error(why);
const found = await testDocker();
if (!found) throw new Error('no Docker daemon answers (BERTH_TEST_DOCKER_HOST or DOCKER_HOST)');
const base = await busyboxImage(found.docker);
const dir = await mkdtemp(join(tmpdir(), 'berth-bench-image-'));
await writeFile(join(dir, 'Dockerfile'), `FROM ${base}\nCMD ["sh", "-c", "mkdir -p /w && echo ok > /w/index.html && exec httpd -f -p 3000 -h /w"]\n`);
await buildImage(found.docker, { contextDir: dir, dockerfilePath: null, tag: IMAGE, buildArgs: {}, labels: { 'berth-test': 'bench' } }, async () => {}, AbortSignal.timeout(60_000));
await rm(dir, { recursive: true, force: true });

const cluster = await startSwarmCluster(3);
try {
  await cluster.load(found.docker, [IMAGE]);
  const manager = cluster.manager.docker;
  const berth = await startEngineBerth(cluster.manager.host, { ENGINE: 'swarm', LOG_LEVEL: 'warn' });
  const org = (await berth.api('GET', '/organization')).body.results[0].id;
  const project = (await berth.api('POST', `/organization/${org}/project`, { name: `bench-${Date.now()}` })).body;
  const envId = (await berth.api('POST', `/project/${project.id}/environment`, { name: 'bench', mode: 'DEVELOPMENT' })).body.id;
  const registry = (await berth.api('POST', `/organization/${org}/containerRegistry`, { name: 'hub', kind: 'DOCKER_HUB', url: 'https://docker.io' })).body;
  const cli = ['-H', cluster.manager.host];
  const nodeAddress = new Map((await manager.listNodes()).map((n: any) => [n.ID as string, n.Status.Addr as string]));

  const berthTimes: number[] = [];
  const rawTimes: number[] = [];
  const healthyTimes: number[] = [];
  // the healthcheck berth's spec carries for a service without a probe of its own (TCP on its port)
  const check = healthcheckOf(defaultReadiness(3000)) as { Test: string[]; Interval: number; Timeout: number; Retries: number };
  const healthArgs = ['--health-cmd', check.Test[1]!, '--health-interval', `${check.Interval / 1e6}ms`, '--health-timeout', `${check.Timeout / 1e6}ms`, '--health-retries', String(check.Retries)];
  for (let round = 1; round <= ROUNDS; round++) {
    const svc = (await berth.api('POST', `/environment/${envId}/container`, {
      name: `hello-${round}`, registry_id: registry.id, image_name: 'berth-bench/hello', tag: '1',
      ports: [{ internal_port: 3000, publicly_accessible: true }], cpu: 100, memory: 32,
    })).body;
    const url = (await berth.api('GET', `/container/${svc.id}/link`)).body.results.find((l: { is_default: boolean }) => l.is_default).url;
    const timeBerth = async () => {
      const t0 = performance.now();
      const wall0 = Date.now();
      const deployment = (await berth.api('POST', `/container/${svc.id}/deploy`)).body;
      await until(async () => (await viaIngress(berth.ingressPort, hostOf(url))).status === 200, 120_000, 'berth\'s app answering');
      berthTimes.push(performance.now() - t0);
      log(`round ${round} berth timeline: ${await deploymentTimeline(berth, deployment.id, wall0)}`);
    };
    const timeRaw = async (healthy = false) => {
      const name = `berth-bench-raw-${Date.now()}`;
      const t0 = performance.now();
      await run('docker', [...cli, 'network', 'create', '-d', 'overlay', '--attachable', name]);
      await run('docker', [...cli, 'service', 'create', '-d', '-q', '--name', name, '--network', name, '--endpoint-mode', 'dnsrr',
        '--publish', 'mode=host,target=3000', '--limit-cpu', '0.1', '--limit-memory', '32m', '--reserve-cpu', '0.1', '--reserve-memory', '32m',
        ...(healthy ? healthArgs : []), IMAGE]);
      let address = '';
      await until(async () => {
        const [task] = (await manager.listTasks({ filters: { service: [name], 'desired-state': ['running'] } })) as any[];
        const port = task?.Status?.State === 'running' ? task.Status.PortStatus?.Ports?.[0]?.PublishedPort : undefined;
        if (!port) return false;
        address = `${nodeAddress.get(task.NodeID)}:${port}`;
        return answers(address);
      }, 120_000, 'the raw service answering');
      (healthy ? healthyTimes : rawTimes).push(performance.now() - t0);
      names.push(name);
    };
    const names: string[] = [];
    const sides = [timeBerth, () => timeRaw(false), () => timeRaw(true)];
    for (let i = 0; i < sides.length; i++) await sides[(i + round) % sides.length]!();
    log(`round ${round}: berth ${berthTimes.at(-1)!.toFixed(0)} ms, docker service create ${rawTimes.at(-1)!.toFixed(0)} ms, with berth's healthcheck ${healthyTimes.at(-1)!.toFixed(0)} ms`);
    for (const name of names) {
      await run('docker', [...cli, 'service', 'rm', name]);
      await until(async () => (await run('docker', [...cli, 'network', 'rm', name]).then(() => true, () => false)), 30_000, 'the raw network going');
    }
    await berth.api('DELETE', `/container/${svc.id}`);
    // the uninstall runs in the background: let it finish (the service, the environment's network,
    // the record) so it does not overlap the next round
    await until(async () => (await manager.listServices({ filters: { label: [`berth.service_id=${svc.id}`] } })).length === 0
      && (await manager.listNetworks({ filters: { label: [`berth.environment_id=${envId}`] } })).length === 0
      && (await berth.api('GET', `/container/${svc.id}`)).status === 404, 60_000, 'berth\'s uninstall')
      .catch((err) => { log(berth.process.output().slice(-3000)); throw err; });
  }

  // reschedule after a node loss
  const svc = (await berth.api('POST', `/environment/${envId}/container`, {
    name: 'spread', registry_id: registry.id, image_name: 'berth-bench/hello', tag: '1', min_running_instances: 3, max_running_instances: 3,
    ports: [{ internal_port: 3000, publicly_accessible: true }], cpu: 100, memory: 32,
  })).body;
  await berth.settle((await berth.api('POST', `/container/${svc.id}/deploy`)).body.id);
  const [service] = await manager.listServices({ filters: { label: [`berth.service_id=${svc.id}`] } });
  const running = async () => ((await manager.listTasks({ filters: { service: [service!.ID!], 'desired-state': ['running'] } })) as any[])
    .filter((t) => t.Status.State === 'running');
  const victimNode = (await running()).map((t) => t.NodeID).find((id) => nodeAddress.get(id) !== cluster.manager.address)!;
  const victim = cluster.nodes.find((n) => n.address === nodeAddress.get(victimNode))!;
  const t0 = performance.now();
  await cluster.kill(victim.index);
  let marked = 0;
  await until(async () => {
    if (!marked && (await berth.api('GET', `/container/${svc.id}/status`)).body.state === 'ERROR') marked = performance.now() - t0;
    const tasks = await running();
    return tasks.length === 3 && tasks.every((t) => t.NodeID !== victimNode) && (await manager.listNodes()).some((n: any) => n.ID === victimNode && n.Status.State === 'down');
  }, 180_000, 'the tasks rescheduled');
  const rescheduled = performance.now() - t0;
  await until(async () => (await berth.api('GET', `/container/${svc.id}/status`)).body.state === 'RUNNING', 60_000, 'berth reporting RUNNING');
  const reported = performance.now() - t0;
  await berth.close();

  const b = median(berthTimes);
  const r = median(rawTimes);
  const h = median(healthyTimes);
  const paired = median(berthTimes.map((t, i) => t / rawTimes[i]!));
  const pairedHealthy = median(berthTimes.map((t, i) => t / healthyTimes[i]!));
  process.stdout.write([
    '| swarm engine, prebuilt image | median ms |',
    '|---|---|',
    `| berth (POST deploy → 200 through the ingress) | ${b.toFixed(0)} |`,
    '| `docker service create` by hand (overlay network, dnsrr, host-mode port, limits; task running and answering on its node) | ' + r.toFixed(0) + ' |',
    `| ratio of medians | ${(b / r).toFixed(2)}× |`,
    `| ratio, median of the rounds' own ratios | ${paired.toFixed(2)}× |`,
    `| the same by hand with berth's healthcheck (${check.Test[1]}, every ${check.Interval / 1e9} s) | ${h.toFixed(0)} |`,
    `| ratio to it (medians; rounds' own) | ${(b / h).toFixed(2)}×; ${pairedHealthy.toFixed(2)}× |`,
    '',
    '| node loss (every process of a worker killed) | ms |',
    '|---|---|',
    `| berth marks the service ERROR (degraded) | ${marked ? marked.toFixed(0) : 'not seen'} |`,
    `| 3 tasks running again on the other nodes | ${rescheduled.toFixed(0)} |`,
    `| berth reports RUNNING | ${reported.toFixed(0)} |`,
    '',
  ].join('\n'));
} finally {
  await cluster.close();
}
