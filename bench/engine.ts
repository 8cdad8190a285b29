// `npm run bench:engine`: the Docker engine's overhead on a deployment. For a prebuilt image
// (present on the daemon), the time from POST /container/{id}/deploy to the app answering
// through its public URL, against the same steps done by hand with the docker CLI in the same
// run (network, run with limits and a loopback port, poll until it answers). Interleaved rounds,
// the side that goes first alternating, medians. Needs a daemon at BERTH_TEST_DOCKER_HOST or DOCKER_HOST and haproxy; BENCH_ROUNDS (5).
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { loadDriverInternals } from '../src/engine/index.ts';
import { busyboxImage, testDocker } from '../test/support/docker.ts';
import { hostOf, startEngineBerth, viaIngress } from '../test/support/engine-berth.ts';
import { deploymentTimeline } from './deploy-timeline.ts';
import { median } from './measure.ts';

const { buildImage } = await loadDriverInternals();
const run = promisify(execFile);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const IMAGE = 'berth-bench/hello:1';

const log = (line: string) => process.stderr.write(`[bench:engine] ${line}\n`);

async function until(fn: () => Promise<boolean>, limitMs = 60_000): Promise<void> {
  const end = Date.now() + limitMs;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error('the app never answered');
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function answers(port: number): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(1000) });
    await res.text();
    return res.status === 200;
  } catch {
    return false;
  }
}

const found = await testDocker();
if (!found) throw new Error('no Docker daemon answers (BERTH_TEST_DOCKER_HOST or DOCKER_HOST)');
const { docker, host } = found;
const base = await busyboxImage(docker);
const dir = await mkdtemp(join(tmpdir(), 'berth-bench-image-'));
await writeFile(join(dir, 'Dockerfile'), `FROM ${base}\nCMD ["sh", "-c", "mkdir -p /w && echo ok > /w/index.html && exec httpd -f -p 3000 -h /w"]\n`);
await buildImage(docker, { contextDir: dir, dockerfilePath: null, tag: IMAGE, buildArgs: {}, labels: { 'berth-test': 'bench' } }, async () => {}, AbortSignal.timeout(60_000));
await rm(dir, { recursive: true, force: true });

const berth = await startEngineBerth(host, { LOG_LEVEL: 'warn' });
const org = (await berth.api('GET', '/organization')).body.results[0].id;
const project = (await berth.api('POST', `/organization/${org}/project`, { name: `bench-${Date.now()}` })).body;
const envId = (await berth.api('POST', `/project/${project.id}/environment`, { name: 'bench', mode: 'DEVELOPMENT' })).body.id;
// Docker Hub references need no registry prefix, and an image present on the daemon is not pulled
const registry = (await berth.api('POST', `/organization/${org}/containerRegistry`, { name: 'hub', kind: 'DOCKER_HUB', url: 'https://docker.io' })).body;
const dockerArgs = ['-H', host];

const berthTimes: number[] = [];
const rawTimes: number[] = [];
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
    await until(async () => (await viaIngress(berth.ingressPort, hostOf(url))).status === 200);
    berthTimes.push(performance.now() - t0);
    log(`round ${round} berth timeline: ${await deploymentTimeline(berth, deployment.id, wall0)}`);
  };
  const timeRaw = async () => {
    const name = `berth-bench-raw-${Date.now()}`;
    const t0 = performance.now();
    await run('docker', [...dockerArgs, 'network', 'create', name]);
    await run('docker', [...dockerArgs, 'run', '-d', '--name', name, '--network', name, '--memory', '32m', '--cpus', '0.1', '-p', '127.0.0.1::3000', IMAGE]);
    const port = Number((await run('docker', [...dockerArgs, 'port', name, '3000'])).stdout.trim().split(':').pop());
    await until(() => answers(port));
    rawTimes.push(performance.now() - t0);
    return name;
  };
  // which goes first alternates: the one after the other's cleanup would otherwise always pay for it
  let name: string;
  if (round % 2 === 1) { await timeBerth(); name = await timeRaw(); } else { name = await timeRaw(); await timeBerth(); }
  log(`round ${round}: berth ${berthTimes.at(-1)!.toFixed(0)} ms, docker CLI ${rawTimes.at(-1)!.toFixed(0)} ms`);

  await run('docker', [...dockerArgs, 'rm', '-f', name]);
  await run('docker', [...dockerArgs, 'network', 'rm', name]);
  await berth.api('DELETE', `/container/${svc.id}`);
  // the uninstall runs in the background: let it finish (containers, the environment's network,
  // the service record) so it does not overlap the next round
  await until(async () => (await docker.listContainers({ all: true, filters: { label: [`berth.service_id=${svc.id}`] } })).length === 0
    && (await docker.listNetworks({ filters: { label: [`berth.environment_id=${envId}`] } })).length === 0
    && (await berth.api('GET', `/container/${svc.id}`)).status === 404);
}
await berth.close();
const b = median(berthTimes);
const r = median(rawTimes);
const paired = median(berthTimes.map((t, i) => t - rawTimes[i]!));
process.stdout.write([
  '| prebuilt image, deploy → answers at its URL | median ms |',
  '|---|---|',
  `| berth (POST deploy → 200 through the ingress) | ${b.toFixed(0)} |`,
  `| docker CLI by hand (network create, run, port, 200 on the published port) | ${r.toFixed(0)} |`,
  `| overhead | ${(b - r).toFixed(0)} ms (${(((b - r) / r) * 100).toFixed(0)} %) |`,
  // the two sides of one round ran back to back: their difference shares the machine's state
  `| overhead, median of the rounds' own differences | ${paired.toFixed(0)} ms (${((paired / r) * 100).toFixed(0)} %) |`,
  '',
].join('\n'));
