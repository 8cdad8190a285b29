// The swarm engine on a real three-node Docker Swarm (test/support/swarm.ts: network namespaces,
// one dockerd each): berth runs as its own process with ENGINE=swarm against the manager, builds
// an application from a loopback git server (the image copied to the workers: no registry), runs
// it as 3 tasks spread over the nodes behind its link (their output as RUNTIME lines); a redeploy
// under steady requests fails none; draining a node moves its tasks with no failed request;
// killing a worker's every process makes berth report the service degraded (ERROR, a
// DEPLOYMENT_FAILED event) and RUNNING again once Swarm has rescheduled; the cluster status lists
// the nodes; a PUBLIC database is pinned and published on its node, its data kept across a
// redeploy; an agentic workflow run is two Swarm tasks on one node (the agent against a scripted
// model on the test host, through its egress proxy); deletion leaves nothing on any node.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { busyboxImage, databaseImage, NO_DOCKER, testDocker } from '../support/docker.ts';
import { hostOf, startEngineBerth, viaIngress, webhookReceiver, type EngineBerth } from '../support/engine-berth.ts';
import { startGitDaemon, type GitDaemon } from '../support/git-daemon.ts';
import { eventually } from '../support/harness.ts';
import { steadyLoad } from '../support/http-load.ts';
import { startSwarmCluster, swarmHostAddress, swarmUnavailable, type SwarmCluster } from '../support/swarm.ts';
import { startTestRegistry, type TestRegistry } from '../support/registry.ts';
import { freePort } from '../support/processes.ts';
import { agentBaseImage, AGENT_BASE_IMAGE } from '../support/agent-fixtures.ts';
import { startScriptedModelProcess } from '../support/scripted-model-process.ts';

const found = await testDocker();
// the Swarm suite runs on the PostgreSQL pass of .ci/run (about 4 minutes; the embedded pass stays
// under its time budget); BERTH_SWARM_TESTS=1 runs it on the embedded database too
const onThisPass = !!process.env.DATABASE_URL || process.env.BERTH_SWARM_TESTS === '1';
const why = !found ? NO_DOCKER : !onThisPass ? 'the Swarm suite runs with DATABASE_URL (the PostgreSQL pass) or BERTH_SWARM_TESTS=1' : await swarmUnavailable();

describe('swarm engine: an application on three nodes', { skip: why ?? false, timeout: 900_000 }, () => {
  const docker = found?.docker!;
  let cluster: SwarmCluster;
  let registry: TestRegistry;
  let berth: EngineBerth;
  let gitd: GitDaemon;
  let orgId: string;
  let envId: string;
  let appId: string;
  let hooks: Awaited<ReturnType<typeof webhookReceiver>>;
  let firstDeployment: string;

  async function api(method: string, url: string, body?: unknown) {
    const r = await berth.api(method, url, body);
    assert.ok(r.status < 300, `${method} ${url}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  }
  const manager = () => cluster.manager.docker;
  const swarmServices = () => manager().listServices({ filters: { label: [`berth.service_id=${appId}`] } });
  /** the node (hostname) of each running task of the application */
  async function taskNodes(): Promise<string[]> {
    const [service] = await swarmServices();
    if (!service) return [];
    const [tasks, nodes] = await Promise.all([manager().listTasks({ filters: { service: [service.ID!], 'desired-state': ['running'] } }), manager().listNodes()]);
    const names = new Map(nodes.map((n: any) => [n.ID, n.Description.Hostname]));
    return tasks.filter((t: any) => t.Status.State === 'running').map((t: any) => names.get(t.NodeID) as string).sort();
  }
  const link = async () => hostOf((await api('GET', `/application/${appId}/link`)).results.find((l: { is_default: boolean }) => l.is_default).url);
  const load = async (host: string, durationMs: number) => steadyLoad({ address: `http://127.0.0.1:${berth.ingressPort}`, host, total: Math.round(durationMs / 50), concurrency: 2, durationMs });

  before(async () => {
    const base = await busyboxImage(docker);
    // a plain-HTTP registry on the test host's leg of the cluster network, which every node may pull from
    const registryAddress = `${swarmHostAddress().address}:${await freePort()}`;
    cluster = await startSwarmCluster(3, { registry: registryAddress });
    registry = await startTestRegistry(docker, { host: registryAddress.split(':')[0], port: Number(registryAddress.split(':')[1]) });
    await cluster.load(docker, [base]);
    gitd = await startGitDaemon();
    await gitd.createRepo('site', {
      Dockerfile: `FROM ${base}\nCOPY index.html /www/index.html\nCMD ["sh", "-c", "echo serving $(cat /www/index.html); exec httpd -f -p 8080 -h /www"]\n`,
      'index.html': 'version 1\n',
    });
    berth = await startEngineBerth(cluster.manager.host, {
      ENGINE: 'swarm', GIT_POLL_INTERVAL_SECONDS: '0', AGENT_BASE_IMAGE,
      SWARM_NODE_DOCKER_HOSTS: cluster.nodes.slice(1).map((n) => n.host).join(','),
    });
    orgId = (await api('GET', '/organization')).results[0].id;
    hooks = await webhookReceiver();
    await api('POST', `/organization/${orgId}/webhook`, { target_url: hooks.url, kind: 'STANDARD', events: ['DEPLOYMENT_FAILED'] });
    const projectId = (await api('POST', `/organization/${orgId}/project`, { name: `swarm-${Date.now()}` })).id;
    envId = (await api('POST', `/project/${projectId}/environment`, { name: 'production', mode: 'PRODUCTION' })).id;
  });
  after(async () => {
    await berth?.close();
    await gitd?.close();
    await hooks?.close();
    await registry?.close();
    await cluster?.close();
  });

  test('3 replicas on at least 2 nodes answer at the link; a redeploy under load fails no request', async () => {
    const app = await api('POST', `/environment/${envId}/application`, {
      name: 'site', git_repository: { url: `${gitd.baseUrl}/site.git`, branch: 'main' }, cpu: 100, memory: 32,
      min_running_instances: 3, max_running_instances: 3, ports: [{ internal_port: 8080, publicly_accessible: true }],
    });
    appId = app.id;
    const first = await berth.settle((await api('POST', `/application/${appId}/deploy`)).id, 300_000);
    assert.equal(first.status, 'DEPLOYED', first.message);
    const nodes = await taskNodes();
    assert.equal(nodes.length, 3, JSON.stringify(nodes));
    assert.ok(new Set(nodes).size >= 2, `tasks spread over nodes: ${nodes.join(', ')}`);
    const host = await link();
    await eventually(async () => (await viaIngress(berth.ingressPort, host)).body === 'version 1\n', 30_000, 200);
    // every task's output, wherever it runs, is a RUNTIME line of the service (one per task)
    await eventually(async () => (await api('GET', `/application/${appId}/log?page_size=100`)).results
      .filter((l: any) => l.kind === 'RUNTIME' && l.message === 'serving version 1').length === 3, 30_000, 250);
    const [service] = await swarmServices();
    assert.equal(service!.Spec!.EndpointSpec!.Mode, 'dnsrr');
    assert.equal((service!.Spec as any).UpdateConfig.Order, 'start-first');

    await gitd.push('site', { 'index.html': 'version 2\n' });
    const loading = load(host, 25_000);
    firstDeployment = (await api('POST', `/application/${appId}/deploy`)).id;
    const redeploy = await berth.settle(firstDeployment, 300_000);
    assert.equal(redeploy.status, 'DEPLOYED', redeploy.message);
    await eventually(async () => (await viaIngress(berth.ingressPort, host)).body === 'version 2\n', 30_000, 200);
    const result = await loading;
    assert.deepEqual(result.failures, [], `${result.failures.length} failed of ${result.ok + result.failures.length}`);
    assert.ok(result.bodies.includes('version 1\n') && result.bodies.includes('version 2\n'), 'the load saw both versions');
  });

  test('with SWARM_REGISTRY, a build is pushed once with the credentials of the organization\'s container registry there, and every node pulls it with them (no copies)', { timeout: 300_000 }, async () => {
    const other = await startEngineBerth(cluster.manager.host, { ENGINE: 'swarm', GIT_POLL_INTERVAL_SECONDS: '0', SWARM_REGISTRY: registry.address });
    try {
      const call = async (method: string, url: string, body?: unknown) => {
        const r = await other.api(method, url, body);
        assert.ok(r.status < 300, `${method} ${url}: ${r.status} ${JSON.stringify(r.body)}`);
        return r.body;
      };
      const org = (await call('GET', '/organization')).results[0].id;
      // the registry refuses anonymous pushes and pulls: berth has its credentials as a container registry of the organization
      assert.equal((await fetch(`http://${registry.address}/v2/_catalog`)).status, 401);
      await call('POST', `/organization/${org}/containerRegistry`, {
        name: 'cluster', kind: 'GENERIC_CR', url: `https://${registry.address}`, config: { username: registry.username, password: registry.password },
      });
      const project = (await call('POST', `/organization/${org}/project`, { name: `swarm-registry-${Date.now()}` })).id;
      const env = (await call('POST', `/project/${project}/environment`, { name: 'registry', mode: 'STAGING' })).id;
      const app = await call('POST', `/environment/${env}/application`, {
        name: 'pulled', git_repository: { url: `${gitd.baseUrl}/site.git`, branch: 'main' }, cpu: 100, memory: 32,
        min_running_instances: 3, max_running_instances: 3, ports: [{ internal_port: 8080, publicly_accessible: true }],
      });
      const deployment = (await call('POST', `/application/${app.id}/deploy`)).id;
      const done = await other.settle(deployment, 300_000);
      assert.equal(done.status, 'DEPLOYED', done.message);
      const lines = (await call('GET', `/deployment/${deployment}/log?page_size=100`)).results.map((l: any) => l.message as string);
      assert.ok(lines.some((l: string) => l.startsWith(`Pushed ${registry.address}/berth/${app.id}:`) && l.includes(`as ${registry.username}`)), JSON.stringify(lines));
      assert.ok(!lines.some((l: string) => l.startsWith('Copied ')), 'nothing copied by berth');
      const basic = `Basic ${Buffer.from(`${registry.username}:${registry.password}`).toString('base64')}`;
      const catalog = await (await fetch(`http://${registry.address}/v2/_catalog`, { headers: { authorization: basic } })).json() as { repositories: string[] };
      assert.ok(catalog.repositories.includes(`berth/${app.id}`), JSON.stringify(catalog));
      const [service] = await manager().listServices({ filters: { label: [`berth.service_id=${app.id}`] } });
      assert.ok((service!.Spec as any).TaskTemplate.ContainerSpec.Image.startsWith(`${registry.address}/berth/${app.id}:`));
      const tasks = (await manager().listTasks({ filters: { service: [service!.ID!], 'desired-state': ['running'] } })).filter((t: any) => t.Status.State === 'running');
      assert.ok(new Set(tasks.map((t: any) => t.NodeID)).size >= 2, 'tasks on at least two nodes, each pulled from the registry');
      const host = hostOf((await call('GET', `/application/${app.id}/link`)).results[0].url);
      await eventually(async () => (await viaIngress(other.ingressPort, host)).status === 200, 30_000, 200);
      await call('DELETE', `/environment/${env}`);
      await eventually(async () => (await manager().listServices({ filters: { label: [`berth.environment_id=${env}`] } })).length === 0, 60_000, 500);
    } finally {
      await other.close();
    }
  });

  test('stop scales the Swarm service to 0 and takes its route; restart replaces every task and serves again', { timeout: 240_000 }, async () => {
    const host = await link();
    const stopped = await berth.settle((await api('POST', `/application/${appId}/stop`)).id);
    assert.equal(stopped.status, 'STOPPED', stopped.message);
    const [service] = await swarmServices();
    assert.equal((service!.Spec as any).Mode.Replicated.Replicas, 0, 'the service stays, scaled to 0');
    assert.deepEqual(await taskNodes(), []);
    assert.notEqual((await viaIngress(berth.ingressPort, host)).status, 200, 'no route to a stopped service');
    firstDeployment = (await api('POST', `/application/${appId}/deploy`)).id; // the version in place: later tests read its log
    const started = await berth.settle(firstDeployment, 300_000);
    assert.equal(started.status, 'DEPLOYED', started.message);
    const before = (await manager().listTasks({ filters: { service: [service!.ID!], 'desired-state': ['running'] } })).map((t: any) => t.ID).sort();
    assert.equal(before.length, 3);
    const restarted = await berth.settle((await api('POST', `/application/${appId}/restart-service`)).id, 300_000);
    assert.equal(restarted.status, 'RESTARTED', restarted.message);
    const after = (await manager().listTasks({ filters: { service: [service!.ID!], 'desired-state': ['running'] } })).filter((t: any) => t.Status.State === 'running').map((t: any) => t.ID);
    assert.equal(after.length, 3);
    assert.ok(after.every((id: string) => !before.includes(id)), 'every task was replaced');
    await eventually(async () => (await viaIngress(berth.ingressPort, host)).body === 'version 2\n', 30_000, 200);
  });

  test('the cluster status lists the nodes; draining one moves its tasks with no failed request', async () => {
    const clusters = (await api('GET', `/organization/${orgId}/cluster`)).results;
    const status = await api('GET', `/organization/${orgId}/cluster/${clusters[0].id}/status`);
    assert.equal(status.nodes.length, 3);
    assert.ok(status.nodes.every((n: any) => n.state === 'ready' && n.availability === 'active'), JSON.stringify(status.nodes));
    assert.equal(status.nodes.reduce((sum: number, n: any) => sum + n.running_tasks, 0), 3);

    const worker = (await manager().listNodes()).find((n: any) => n.Description.Hostname === `${cluster.name}-node2`) as any;
    const host = await link();
    const loading = load(host, 15_000);
    await manager().getNode(worker.ID).update({ version: worker.Version.Index, ...worker.Spec, Availability: 'drain' });
    await eventually(async () => {
      const nodes = await taskNodes();
      return nodes.length === 3 && !nodes.includes(`${cluster.name}-node2`);
    }, 60_000, 250);
    const result = await loading;
    assert.deepEqual(result.failures, [], `${result.failures.length} failed of ${result.ok + result.failures.length}`);
    const after = await api('GET', `/organization/${orgId}/cluster/${clusters[0].id}/status`);
    const drained = after.nodes.find((n: any) => n.hostname === `${cluster.name}-node2`);
    assert.deepEqual([drained.availability, drained.running_tasks], ['drain', 0]);
    assert.equal((await api('GET', `/application/${appId}/status`)).state, 'RUNNING');
  });

  test('a worker dies: its tasks come back on the others, berth reports degraded then RUNNING', async () => {
    assert.ok((await taskNodes()).includes(`${cluster.name}-node3`), 'node 3 runs a task');
    await cluster.kill(3);
    await eventually(async () => {
      const nodes = await taskNodes();
      return nodes.length === 3 && !nodes.includes(`${cluster.name}-node3`);
    }, 120_000, 500);
    const logs = async () => ((await api('GET', `/deployment/${firstDeployment}/log?tail=100`)).results ?? []).map((l: any) => l.message ?? '') as string[];
    await eventually(async () => (await logs()).some((m) => m.startsWith('Degraded:') && m.includes('node3')), 60_000, 500);
    await eventually(async () => (await api('GET', `/application/${appId}/status`)).state === 'RUNNING', 60_000, 500);
    assert.ok((await logs()).some((m) => m.startsWith('Swarm runs every task again')));
    const failed = await eventually(async () => hooks.bodies.find((b) => JSON.stringify(b).includes('DEPLOYMENT_FAILED') && JSON.stringify(b).includes('node3')), 30_000, 250);
    assert.ok(failed, 'a DEPLOYMENT_FAILED webhook naming the node');
    assert.equal((await viaIngress(berth.ingressPort, await link())).body, 'version 2\n');
  });

  test('a service with a volume is pinned to one node and keeps its data across a redeploy', { timeout: 300_000 }, async () => {
    const worker = (await manager().listNodes()).find((n: any) => n.Description.Hostname === `${cluster.name}-node2`) as any;
    await manager().getNode(worker.ID).update({ version: worker.Version.Index, ...worker.Spec, Availability: 'active' });
    await gitd.createRepo('notes', {
      Dockerfile: `FROM ${await busyboxImage(docker)}\nCMD ["sh", "-c", "echo boot >> /data/boots; mkdir -p /www; ln -sf /data/boots /www/boots; exec httpd -f -p 8080 -h /www"]\n`,
    });
    const notes = await api('POST', `/environment/${envId}/application`, {
      name: 'notes', git_repository: { url: `${gitd.baseUrl}/notes.git`, branch: 'main' }, cpu: 100, memory: 32,
      ports: [{ internal_port: 8080, publicly_accessible: true }], storage: [{ type: 'FAST_SSD', size: 4, mount_point: '/data' }],
    });
    const first = await berth.settle((await api('POST', `/application/${notes.id}/deploy`)).id, 300_000);
    assert.equal(first.status, 'DEPLOYED', first.message);
    const host = hostOf((await api('GET', `/application/${notes.id}/link`)).results[0].url);
    await eventually(async () => (await viaIngress(berth.ingressPort, host, '/boots')).body === 'boot\n', 30_000, 200);
    const pinnedNodes = (await manager().listNodes()).filter((n: any) => n.Spec.Labels?.[`berth.volume.${notes.id}`] === 'true');
    assert.equal(pinnedNodes.length, 1, 'one node holds the volume');
    const again = await berth.settle((await api('POST', `/application/${notes.id}/redeploy`)).id, 300_000);
    assert.equal(again.status, 'DEPLOYED', again.message);
    await eventually(async () => (await viaIngress(berth.ingressPort, host, '/boots')).body === 'boot\nboot\n', 30_000, 200);
    const [service] = await manager().listServices({ filters: { label: [`berth.service_id=${notes.id}`] } });
    const tasks = await manager().listTasks({ filters: { service: [service!.ID!], 'desired-state': ['running'] } });
    assert.deepEqual(tasks.map((t: any) => t.NodeID), [(pinnedNodes[0] as any).ID], 'the task runs on the pinned node');
    assert.equal((service!.Spec as any).UpdateConfig.Order, 'stop-first');
  });

  test('a PUBLIC database is pinned to one node and published there: its credentials give that address; its data survives a redeploy', { timeout: 300_000 }, async () => {
    await cluster.load(docker, [await databaseImage(docker, 'POSTGRESQL', '15')], cluster.nodes.filter((n) => n.index !== 3).map((n) => n.index));
    const db = await api('POST', `/environment/${envId}/database`, { name: 'ledger', type: 'POSTGRESQL', mode: 'CONTAINER', version: '15', accessibility: 'PUBLIC' });
    const first = await berth.settle((await api('POST', `/database/${db.id}/deploy`)).id, 300_000);
    assert.equal(first.status, 'DEPLOYED', first.message);
    const pinned = (await manager().listNodes()).filter((n: any) => n.Spec.Labels?.[`berth.volume.${db.id}`] === 'true') as any[];
    assert.equal(pinned.length, 1, 'one node holds the volume');
    const credentials = await api('GET', `/database/${db.id}/masterCredentials`);
    assert.equal(credentials.host, pinned[0].Status.Addr, 'clients connect to the node it is published on');
    assert.deepEqual({ host: (await api('GET', `/database/${db.id}`)).host, port: (await api('GET', `/database/${db.id}`)).port }, { host: credentials.host, port: credentials.port });
    const psql = (sql: string) => new Promise<{ ok: boolean; out: string }>((resolve) => {
      execFile('psql', ['-h', credentials.host, '-p', String(credentials.port), '-U', credentials.login, '-d', 'postgres', '-w', '-tAc', sql], {
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', PGPASSWORD: credentials.password, PGCONNECT_TIMEOUT: '5' }, timeout: 20_000,
      }, (err, stdout, stderr) => resolve({ ok: !err, out: `${stdout}${stderr}`.trim() }));
    });
    const created = await psql(`create table kept (v text); insert into kept values ('on the swarm')`);
    assert.ok(created.ok, created.out);
    const again = await berth.settle((await api('POST', `/database/${db.id}/redeploy`)).id, 300_000);
    assert.equal(again.status, 'DEPLOYED', again.message);
    const read = await psql('select v from kept');
    assert.ok(read.ok, read.out);
    assert.equal(read.out, 'on the swarm');
    const [service] = await manager().listServices({ filters: { label: [`berth.service_id=${db.id}`] } });
    const tasks = await manager().listTasks({ filters: { service: [service!.ID!], 'desired-state': ['running'] } });
    assert.deepEqual(tasks.map((t: any) => t.NodeID), [pinned[0].ID], 'the task runs on the pinned node');
    assert.equal((service!.Spec as any).UpdateConfig.Order, 'stop-first');
    assert.deepEqual((service!.Spec as any).EndpointSpec.Ports, [{ Protocol: 'tcp', TargetPort: 5432, PublishedPort: credentials.port, PublishMode: 'host' }]);
  });

  test('a cron job runs as a Swarm job, once per occurrence even with two workers', { timeout: 300_000 }, async () => {
    if (berth.env.DATABASE_URL) await berth.extra('worker');
    const job = await api('POST', `/environment/${envId}/job`, {
      name: 'tick', source: { docker: { git_repository: { url: `${gitd.baseUrl}/site.git`, branch: 'main' } } },
      schedule: { cronjob: { scheduled_at: '* * * * *', entrypoint: 'sh', arguments: ['-c', 'echo tick from $BERTH_SERVICE_NAME'] } },
      max_duration_seconds: 30, memory: 32, cpu: 100,
    });
    assert.equal((await berth.settle((await api('POST', `/job/${job.id}/deploy`)).id, 300_000)).status, 'DEPLOYED');
    const run = await eventually(async () => (await api('GET', `/job/${job.id}/run`)).results.find((r: any) => r.status === 'SUCCEEDED' || r.status === 'FAILED'), 180_000, 1000);
    assert.equal(run.status, 'SUCCEEDED', run.message);
    const log = (await api('GET', `/job/${job.id}/run/${run.id}/log`)).results.map((l: any) => l.message);
    assert.ok(log.includes('tick from tick'), JSON.stringify(log));
    await new Promise((r) => setTimeout(r, 5000));
    const same = (await api('GET', `/job/${job.id}/run?page_size=100`)).results.filter((r: any) => r.scheduled_for === run.scheduled_for);
    assert.equal(same.length, 1);
    assert.equal((await manager().listServices({ filters: { label: [`berth.service_id=${job.id}`, 'berth.role=job-run'] } })).length, 0, 'the job service is removed after its run');
    const runContainers = (await Promise.all(cluster.nodes.filter((n) => n.index !== 3).map((n) => n.docker.listContainers({ all: true, filters: { label: [`berth.run_id=${run.id}`] } })))).flat();
    assert.deepEqual(runContainers.filter((c) => c.State !== 'running').map((c) => c.Names[0]), [], 'a finished run leaves no container on any node');
  });

  test('an agentic workflow run is two Swarm tasks on one node: the agent works through the egress proxy only, and nothing is left', { timeout: 600_000 }, async () => {
    // the model is a process of the test host, reached from the nodes at the host's leg of the cluster network
    const model = await startScriptedModelProcess(swarmHostAddress().address);
    try {
      await cluster.load(docker, [await agentBaseImage(docker)], [1]);
      const direct = `${model.baseUrlInNetwork}/__requests`;
      await model.setScripts({
        swarm: [
          { tool_use: { name: 'Bash', input: { command: `cat /berth/context.json; curl -sS -m 3 --noproxy "*" ${direct} >/dev/null 2>&1 || echo DIRECT-BLOCKED` } } },
          { text: 'Checked from the Swarm.' },
        ],
      });
      const w = await api('POST', `/environment/${envId}/agenticWorkflow`, {
        name: 'swarm-agent', agent_prompt: 'Check the cluster. [script:swarm]',
        model: { type: 'CLAUDE', api_key: 'sk-ant-swarm-test', settings: JSON.stringify({ base_url: model.baseUrlInNetwork, max_turns: 6, timeout_seconds: 300 }) },
        resources: { cpu_milli: 500, ram_mib: 512, gpu: 0, storage_gib: 0 },
      });
      const started = await api('POST', `/agenticWorkflow/${w.id}/run`);
      const byRun = { label: [`berth.run_id=${started.id}`] };
      // while it runs: the run and its proxy are Swarm services whose tasks share one node
      const placed = await eventually(async () => {
        const services = await manager().listServices({ filters: byRun });
        if (services.length !== 2) return null;
        const tasks = (await manager().listTasks({ filters: byRun })).filter((t: any) => t.Status.State === 'running');
        return tasks.length === 2 ? { roles: services.map((s: any) => s.Spec.Labels['berth.role']).sort(), nodes: [...new Set(tasks.map((t: any) => t.NodeID))] } : null;
      }, 420_000, 200);
      assert.deepEqual(placed.roles, ['agent-egress', 'agent-run']);
      assert.equal(placed.nodes.length, 1, 'both tasks on one node');
      const run = await eventually(async () => {
        const r = await api('GET', `/agenticWorkflow/${w.id}/run/${started.id}`);
        return ['SUCCEEDED', 'FAILED', 'CANCELED'].includes(r.status) ? r : null;
      }, 180_000, 500);
      const lines = (await api('GET', `/agenticWorkflow/${w.id}/run/${run.id}/log?page_size=100`)).results.map((l: any) => l.message) as string[];
      assert.equal(run.status, 'SUCCEEDED', `${run.message}\n${lines.join('\n')}`);
      assert.equal(run.result, 'Checked from the Swarm.');
      const node = (await manager().listNodes()).find((n: any) => n.ID === placed.nodes[0]) as any;
      assert.ok(lines.some((l) => l.startsWith(`Running as Swarm tasks on ${node.Description.Hostname}`)), lines.join('\n'));
      assert.ok(lines.includes(`egress allowed: ${swarmHostAddress().address}`), 'the model was reached through the proxy');
      const bash = lines.find((l) => l.startsWith('tool result (Bash)')) ?? '';
      assert.match(bash, /DIRECT-BLOCKED/, 'the run network has no way out but the proxy');
      assert.match(bash, new RegExp(started.id), 'the workspace (its context file) was in place before the agent started');
      assert.equal((await model.requests())[0]?.headers['x-api-key'], 'sk-ant-swarm-test');
      const alive = cluster.nodes.filter((n) => n.index !== 3);
      await eventually(async () => {
        const left = [
          ...await manager().listServices({ filters: byRun }), ...await manager().listNetworks({ filters: byRun }),
          ...(await Promise.all(alive.map((n) => n.docker.listContainers({ all: true, filters: byRun })))).flat(),
        ];
        return left.length === 0 || null;
      }, 60_000, 500);
    } finally {
      await model.stop();
    }
  });

  test('deleting the environment leaves no service, network, config, container or volume on any live node', { timeout: 240_000 }, async () => {
    await api('DELETE', `/environment/${envId}`);
    const alive = cluster.nodes.filter((n) => n.index !== 3);
    const leftovers = async () => {
      const filters = { label: ['berth.managed=true'] };
      const [services, networks, configs] = await Promise.all([manager().listServices({ filters }), manager().listNetworks({ filters }), manager().listConfigs({ filters })]);
      const containers = (await Promise.all(alive.map((n) => n.docker.listContainers({ all: true, filters })))).flat();
      const volumes = (await Promise.all(alive.map((n) => n.docker.listVolumes({ filters })))).flatMap((v) => v.Volumes ?? []);
      return {
        volumes: volumes.map((v) => v.Name),
        services: services.map((x: any) => x.Spec.Name), networks: networks.map((x: any) => x.Name), configs: configs.map((x: any) => x.Spec.Name),
        containers: containers.map((x: any) => `${x.Names[0]} ${x.State}`),
      };
    };
    let left = await leftovers();
    for (const deadline = Date.now() + 180_000; Date.now() < deadline; left = await leftovers()) {
      if (Object.values(left).every((l) => l.length === 0)) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    assert.deepEqual(left, { volumes: [], services: [], networks: [], configs: [], containers: [] });
  });
});
