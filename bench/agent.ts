// `npm run bench:agent`: what berth adds to an agent run before the agent's first model request,
// with the agent image cached. berth: POST /agenticWorkflow/{id}/run → the scripted model receives
// the first /v1/messages request (berth's run network, egress proxy, workspace copy, then Claude
// Code). Bare: `docker run` of the same image on the model's network, Claude Code straight at the
// model, the same prompt → the same first request. Interleaved rounds, medians, and the run
// container's peak memory (cgroup, page cache included; the model answers after 2.5 s so the
// container lives long enough to be sampled). Needs a daemon at BERTH_TEST_DOCKER_HOST
// or DOCKER_HOST; BENCH_ROUNDS (5).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { networkName } from '../src/engine/index.ts';
import { agentBaseImage, removeByLabel, startScriptedModel } from '../test/support/agent-fixtures.ts';
import { testDocker } from '../test/support/docker.ts';
import { startEngineBerth } from '../test/support/engine-berth.ts';

const run = promisify(execFile);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const log = (line: string) => process.stderr.write(`[bench:agent] ${line}\n`);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const found = await testDocker();
if (!found) throw new Error('no Docker daemon answers (BERTH_TEST_DOCKER_HOST or DOCKER_HOST)');
const { docker, host } = found;
const base = await agentBaseImage(docker);
const berth = await startEngineBerth(host, { LOG_LEVEL: 'warn', AGENT_BASE_IMAGE: base });
const org = (await berth.api('GET', '/organization')).body.results[0].id;
const project = (await berth.api('POST', `/organization/${org}/project`, { name: `bench-agent-${Date.now()}` })).body;
const envId = (await berth.api('POST', `/project/${project.id}/environment`, { name: 'bench', mode: 'DEVELOPMENT' })).body.id;
const model = await startScriptedModel(docker, { network: networkName(envId), alias: 'model' });
await model.setScripts({ bench: [{ text: 'done', sleep_ms: 2500 }] });
const workflow = (await berth.api('POST', `/environment/${envId}/agenticWorkflow`, {
  name: 'bench', agent_prompt: 'Say done. [script:bench]',
  model: { type: 'CLAUDE', api_key: 'sk-bench', settings: JSON.stringify({ base_url: 'http://model:8080', max_turns: 2 }) },
})).body;

/** ms until the model has received `count` message requests */
async function firstRequestAfter(t0: number, count: number): Promise<number> {
  for (;;) {
    const n = (await model.requests()).filter((r) => r.path.includes('/v1/messages')).length;
    if (n >= count) return performance.now() - t0;
    if (performance.now() - t0 > 120_000) throw new Error('the model was never called');
    await sleep(10);
  }
}

/** the highest memory use of containers matching `label` until `done` resolves */
async function peakMemory(label: string, done: Promise<unknown>): Promise<number> {
  let peak = 0;
  let finished = false;
  void done.finally(() => { finished = true; });
  while (!finished) {
    for (const c of await docker.listContainers({ filters: { label: [label, 'berth.role=agent-run'] } })) {
      const stats = await (docker.getContainer(c.Id).stats as (o: object) => Promise<unknown>)({ stream: false, "one-shot": true }).catch(() => null) as { memory_stats?: { max_usage?: number; usage?: number } } | null;
      peak = Math.max(peak, stats?.memory_stats?.max_usage ?? stats?.memory_stats?.usage ?? 0);
    }
    await sleep(50);
  }
  return peak / (1024 * 1024);
}

const berthTimes: number[] = [];
const bareTimes: number[] = [];
const peaks: number[] = [];
let image = '';
for (let round = 0; round <= ROUNDS; round++) {
  await model.reset();
  await model.setScripts({ bench: [{ text: 'done', sleep_ms: 2500 }] });
  let t0 = performance.now();
  const started = await berth.api('POST', `/agenticWorkflow/${workflow.id}/run`);
  const finished = (async () => {
    for (;;) {
      const r = (await berth.api('GET', `/agenticWorkflow/${workflow.id}/run/${started.body.id}`)).body;
      if (['SUCCEEDED', 'FAILED', 'CANCELED'].includes(r.status)) return r;
      await sleep(100);
    }
  })();
  const peak = peakMemory(`berth.run_id=${started.body.id}`, finished);
  const berthMs = await firstRequestAfter(t0, 1);
  const outcome = await finished;
  if (outcome.status !== 'SUCCEEDED') throw new Error(`run ${outcome.status}: ${outcome.message}`);
  if (round === 0) {
    // the first round builds the image: not measured; the image it built is the bare case's
    image = (await docker.listImages({ filters: { label: ['berth.role=agent-image'] } }))
      .flatMap((i) => (i.RepoTags ?? []).map((tag) => ({ tag, created: i.Created })))
      .filter((i) => i.tag.startsWith('berth-agent-harness:')).sort((a, b) => b.created - a.created)[0]!.tag;
    log(`warm-up round (image build) ${berthMs.toFixed(0)} ms; bare case runs ${image}`);
    continue;
  }
  berthTimes.push(berthMs);
  peaks.push(await peak);
  // where berth's time went: the queue (run created → deployment started), the setup (→ the agent container starts)
  const lines = (await berth.api('GET', `/agenticWorkflow/${workflow.id}/run/${started.body.id}/log?page_size=100`)).body.results as Array<{ message: string; created_at: string }>;
  const at = (prefix: string) => Date.parse(lines.find((l) => l.message.startsWith(prefix))?.created_at ?? '');
  const startedAt = Date.parse(outcome.started_at);
  log(`  queue ${startedAt - Date.parse(outcome.created_at)} ms, setup ${at('Starting the agent') - startedAt} ms (network ${at('Egress through') - startedAt} ms)`);

  await model.reset();
  await model.setScripts({ bench: [{ text: 'done', sleep_ms: 2500 }] });
  const name = `berth-bench-agent-${Date.now()}`;
  t0 = performance.now();
  const bare = run('docker', ['-H', host, 'run', '--rm', '--name', name, '--network', networkName(envId), '--user', 'agent', '--memory', '1g', '--cpus', '1',
    '-e', 'ANTHROPIC_BASE_URL=http://model:8080', '-e', 'ANTHROPIC_API_KEY=sk-bench', '-e', 'CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1',
    '--entrypoint', 'sh', image, '-c', 'echo "Say done. [script:bench]" | exec claude -p --output-format stream-json --verbose --max-turns 2']);
  bareTimes.push(await firstRequestAfter(t0, 1));
  await bare;
  log(`round ${round}: berth ${berthTimes.at(-1)!.toFixed(0)} ms, bare docker run ${bareTimes.at(-1)!.toFixed(0)} ms, peak ${peaks.at(-1)!.toFixed(0)} MiB`);
}
await berth.api('DELETE', `/environment/${envId}`);
await sleep(2000);
await removeByLabel(docker).catch(() => {});
await berth.close();
const b = median(berthTimes);
const r = median(bareTimes);
process.stdout.write([
  '| agent run, cached image: trigger → first model request | median ms |',
  '|---|---|',
  `| berth (POST …/run → first /v1/messages at the model) | ${b.toFixed(0)} |`,
  '| bare `docker run` of the same image, same prompt, straight at the model | ' + `${r.toFixed(0)} |`,
  `| berth adds | ${(b - r).toFixed(0)} ms (${(b / r).toFixed(2)}×; target ≤ 1000 ms) |`,
  `| peak memory of a run container (median of rounds) | ${median(peaks).toFixed(0)} MiB |`,
  '',
].join('\n'));
