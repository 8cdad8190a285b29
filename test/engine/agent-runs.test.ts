// Agentic workflow runs on the Docker engine, end to end through berth's API: Claude Code (the
// pinned harness) in a run container of its own, against a scripted Anthropic-compatible endpoint
// that runs as a container on the environment's network; a stdio MCP server from npm inside the
// image and an HTTP one beside it; a repository cloned into the workspace; the egress proxy
// letting through only the allowlist; outputs delivered; failures with their reasons; cancel.
// Only the model is scripted: everything around it is the real thing.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkName } from '../../src/engine/docker/naming.ts';
import { NO_DOCKER, startGitServer, startTestRegistry, testDocker, type GitServer } from '../support/docker.ts';
import {
  agentBaseImage, EVERYTHING_STDIO_ENTRY, removeByLabel, SCRIPTED_MODEL_IMAGE, startHttpMcpServer, startOutputReceiver, startScriptedModel,
  type HttpMcpServer, type OutputReceiver, type ScriptedModel,
} from '../support/agent-fixtures.ts';
import { startEngineBerth, type EngineBerth } from '../support/engine-berth.ts';
import { eventually } from '../support/harness.ts';

const found = await testDocker();
const API_KEY = 'sk-ant-test-key-4f8a1c9e';
const HEADER_SECRET = 'mcp-header-secret-77d2';

describe('agent runs on the docker engine', { skip: found ? false : NO_DOCKER, timeout: 1_500_000 }, () => {
  const docker = found?.docker!;
  let berth: EngineBerth;
  let git: GitServer;
  let receiver: OutputReceiver;
  let model: ScriptedModel;
  let mcpHttp: HttpMcpServer;
  let envId: string;
  let projectId: string;
  let orgId: string;
  let repoUrl: string;

  before(async () => {
    const base = await agentBaseImage(docker);
    git = await startGitServer();
    repoUrl = (await git.createRepo('notes', { 'README.md': '# ops notes\n', 'disk.txt': 'db-1 status: unknown\n' })).url;
    receiver = await startOutputReceiver();
    // beyond loopback: runs reach berth's MCP server at host.docker.internal (AGENT_BERTH_URL's default)
    berth = await startEngineBerth(found!.host, { AGENT_BASE_IMAGE: base, HOST: '0.0.0.0' });
    orgId = (await berth.api('GET', '/organization')).body.results[0].id;
    projectId = (await berth.api('POST', `/organization/${orgId}/project`, { name: `agents-${Date.now()}` })).body.id;
    envId = (await berth.api('POST', `/project/${projectId}/environment`, { name: 'ops', mode: 'DEVELOPMENT' })).body.id;
    // the model gateway and two more servers, by name on the environment's network
    model = await startScriptedModel(docker, { network: networkName(envId), alias: 'model' });
    mcpHttp = await startHttpMcpServer(docker, { network: networkName(envId), alias: 'mcp-http', requireHeader: { name: 'X-Mcp-Token', value: HEADER_SECRET } });
    await startHttpMcpServer(docker, { network: networkName(envId), alias: 'docs' });
    await startHttpMcpServer(docker, { network: networkName(envId), alias: 'blocked' });
    // one agent run builds the image (cached for every later run and CI pass)
  }, { timeout: 900_000 });

  after(async () => {
    // the fixtures' containers first, then the environment as a user removes it, then the network
    // the fixtures may have made for it (free once berth's containers are gone)
    await removeByLabel(docker).catch(() => {});
    if (envId && berth) {
      await berth.api('DELETE', `/environment/${envId}`).catch(() => {});
      await eventually(async () => (await docker.listContainers({ all: true, filters: { label: [`berth.environment_id=${envId}`] } })).length === 0 || null, 60_000, 500).catch(() => {});
    }
    await removeByLabel(docker).catch(() => {});
    await berth?.close();
    await git?.close();
    await receiver?.close();
  });

  const workflow = async (name: string, extra: Record<string, unknown> = {}) => {
    const created = await berth.api('POST', `/environment/${envId}/agenticWorkflow`, {
      name,
      agent_prompt: `Triage the alert you receive. [script:${name}]`,
      model: { type: 'CLAUDE', api_key: API_KEY, settings: JSON.stringify({ base_url: 'http://model:8080', max_turns: 12, timeout_seconds: 300 }) },
      resources: { cpu_milli: 1000, ram_mib: 1024, gpu: 0, storage_gib: 0 },
      ...extra,
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    return created.body;
  };
  const finalRun = (workflowId: string, runId: string, ms = 240_000) => eventually(async () => {
    const r = (await berth.api('GET', `/agenticWorkflow/${workflowId}/run/${runId}`)).body;
    return ['SUCCEEDED', 'FAILED', 'CANCELED'].includes(r.status) ? r : null;
  }, ms, 300);
  const runLog = async (workflowId: string, runId: string): Promise<string[]> =>
    (await berth.api('GET', `/agenticWorkflow/${workflowId}/run/${runId}/log?page_size=100`)).body.results.map((l: { message: string }) => l.message);
  const leftOf = async (runId: string) => [
    ...(await docker.listContainers({ all: true, filters: { label: [`berth.run_id=${runId}`] } })),
    ...(await docker.listNetworks({ filters: { label: [`berth.run_id=${runId}`] } })),
  ];
  const hookPath = (url: string) => new URL(url).pathname;

  test('a webhook run: the model gets the prompt, the payload and the outputs\' instructions; MCP tools, a file edit and the allowlist work; the result is delivered', async () => {
    await model.setScripts({
      triage: [
        { tool_use: { name: 'mcp__everything__echo', input: { message: 'checking disk' } } },
        { tool_use: { name: 'mcp__remote__echo', input: { message: 'over http' } } },
        { tool_use: { name: 'Read', input: { file_path: '/workspace/notes/disk.txt' } } },
        { tool_use: { name: 'Edit', input: { file_path: '/workspace/notes/disk.txt', old_string: 'status: unknown', new_string: 'status: full' } } },
        {
          tool_use: {
            name: 'Bash', input: {
              command: 'cat /workspace/notes/disk.txt; curl -sS -m 5 http://docs:8080/__requests >/dev/null && echo DOCS-OK; '
                + 'echo "blocked answered $(curl -s -m 5 -o /dev/null -w %{http_code} http://blocked:8080/__requests)"; '
                + 'curl -sS -m 3 --noproxy "*" http://model:8080/__requests >/dev/null 2>&1 || echo DIRECT-BLOCKED',
            },
          },
        },
        { text: 'Disk on db-1 is full; rotated the logs.' },
      ],
    });
    const w = await workflow('triage', {
      mcp: JSON.stringify({ mcpServers: { everything: EVERYTHING_STDIO_ENTRY, remote: { type: 'http', url: 'http://mcp-http:8080/mcp', headers: { 'X-Mcp-Token': HEADER_SECRET } } } }),
      outputs: [{ name: 'on-call', url: `${receiver.url}/ops`, headers: [{ name: 'X-Ops-Key', value: 'ops-key-1' }], instructions: 'One line for the on-call channel.' }],
      project_repositories: [{ url: repoUrl, branch: 'main' }],
      governance: { host_allowlist: ['docs'] },
    });
    const started = await fetch(`${berth.process.url}${hookPath(w.webhook.url)}`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ alert: 'disk full on db-1' }),
    });
    assert.equal(started.status, 202);
    const run = await finalRun(w.id, (await started.json() as { id: string }).id);
    const lines = await runLog(w.id, run.id);
    assert.equal(run.status, 'SUCCEEDED', `${run.message}\n${lines.join('\n')}`);
    assert.equal(run.result, 'Disk on db-1 is full; rotated the logs.');
    assert.equal(run.num_turns, 6);
    assert.ok(run.input_tokens > 0 && run.output_tokens > 0 && run.cost_usd > 0 && run.duration_ms > 0, JSON.stringify(run));

    const requests = await model.requests();
    const first = JSON.stringify(requests[0]!.body);
    assert.match(first, /disk full on db-1/, 'the trigger payload is in the prompt');
    assert.match(first, /One line for the on-call channel/, "each output's instructions are in the prompt");
    assert.equal(requests[0]!.headers['x-api-key'], API_KEY);
    assert.match(JSON.stringify(requests[1]!.body), /Echo: checking disk/, 'the MCP tool result went back to the model');
    assert.match(JSON.stringify(requests[2]!.body), /Echo: over http/, 'the HTTP MCP server answered');
    assert.ok((await mcpHttp.requests()).some((r) => r.headers['x-mcp-token'] === HEADER_SECRET), 'the HTTP MCP server got its header');

    const bash = lines.find((l) => l.startsWith('tool result (Bash)')) ?? '';
    assert.match(bash, /status: full/, 'the file edit happened in the cloned repository');
    assert.match(bash, /DOCS-OK/, 'an allowlisted host answers');
    assert.match(bash, /blocked answered 403/, 'a host off the allowlist is refused by the proxy');
    assert.match(bash, /DIRECT-BLOCKED/, 'without the proxy there is no way out');
    assert.ok(lines.some((l) => l === 'egress refused: blocked is not in governance.host_allowlist'), lines.join('\n'));
    assert.ok(lines.some((l) => /^Cloning .*notes.* \(branch main\)/.test(l)));
    assert.ok(lines.some((l) => l.startsWith('tool call: mcp__everything__echo')));

    await receiver.waitFor(1, 30_000);
    const delivery = receiver.received[0]!;
    assert.equal(delivery.headers['x-ops-key'], 'ops-key-1');
    assert.ok(delivery.headers['webhook-signature'], 'signed as webhooks are');
    assert.equal(delivery.body.data.run.id, run.id);
    assert.equal(delivery.body.data.run.status, 'SUCCEEDED');
    assert.equal(delivery.body.data.run.result, run.result);

    // the key is nowhere: not in the log, the API's answers, or anything left on the daemon
    for (const text of [lines.join('\n'), JSON.stringify(run), JSON.stringify((await berth.api('GET', `/agenticWorkflow/${w.id}`)).body)]) {
      assert.ok(!text.includes(API_KEY), 'api_key leaked');
      assert.ok(!text.includes(HEADER_SECRET) || text === JSON.stringify((await berth.api('GET', `/agenticWorkflow/${w.id}`)).body), 'header leaked');
    }
    assert.deepEqual(await leftOf(run.id), [], 'the run left nothing behind');
    for (const image of await docker.listImages({ filters: { label: ['berth.role=agent-image'] } })) {
      const history = await docker.getImage(image.Id).history() as Array<{ CreatedBy: string }>;
      assert.ok(!JSON.stringify(history).includes(API_KEY));
      const inspected = await docker.getImage(image.Id).inspect();
      assert.ok(!JSON.stringify(inspected.Config).includes(API_KEY));
    }
  });

  test('the run cannot reach the host: no address of the host answers from the run network', async () => {
    const hits: string[] = [];
    const server = http.createServer((req, res) => { hits.push(req.url ?? ''); res.end('host service'); });
    await new Promise<void>((r) => server.listen(0, '0.0.0.0', () => r()));
    const port = (server.address() as AddressInfo).port;
    try {
      const envGateway = (await docker.getNetwork(networkName(envId)).inspect()).IPAM?.Config?.[0]?.Gateway ?? '172.17.0.1';
      const bridgeGateway = (await docker.getNetwork('bridge').inspect()).IPAM?.Config?.[0]?.Gateway ?? '172.17.0.1';
      // the run network's own gateway from the routing table, then the other bridges' host addresses
      const gw = `$(awk '$2=="00000000"{print $3}' /proc/net/route | head -1 | sed 's/\\(..\\)\\(..\\)\\(..\\)\\(..\\)/printf "%d.%d.%d.%d" 0x\\4 0x\\3 0x\\2 0x\\1/' | sh)`;
      const probe = (host: string, label: string) => `curl -sS -m 3 --noproxy "*" http://${host}:${port}/${label} >/dev/null 2>&1 && echo ${label}-REACHED || echo ${label}-BLOCKED`;
      await model.setScripts({
        host: [
          { tool_use: { name: 'Bash', input: { command: [probe(gw, 'gateway'), probe(envGateway, 'envbridge'), probe(bridgeGateway, 'docker0')].join('; ') } } },
          { text: 'probed' },
        ],
      });
      const w = await workflow('host');
      const started = await berth.api('POST', `/agenticWorkflow/${w.id}/run`, { reason: 'probe' });
      assert.equal(started.status, 202, JSON.stringify(started.body));
      assert.equal(started.body.trigger, 'MANUAL');
      const run = await finalRun(w.id, started.body.id);
      const lines = await runLog(w.id, run.id);
      assert.equal(run.status, 'SUCCEEDED', `${run.message}\n${lines.join('\n')}`);
      const bash = lines.find((l) => l.startsWith('tool result (Bash)')) ?? '';
      for (const label of ['gateway', 'envbridge', 'docker0']) assert.match(bash, new RegExp(`${label}-BLOCKED`), bash);
      assert.deepEqual(hits, [], 'the host server saw no request');
    } finally {
      server.close();
    }
  });

  test('the agent uses berth\'s own MCP server with the run\'s credential: its tools in the log; nothing else of the host through the proxy', async () => {
    const port = new URL(berth.process.url).port;
    await model.setScripts({
      platform: [
        { tool_use: { name: 'mcp__berth__list_services', input: { environment: envId } } },
        { tool_use: { name: 'mcp__berth__get_service', input: { service: 'platform' } } },
        { tool_use: { name: 'Bash', input: { command: `echo "other path $(curl -s -m 5 -o /dev/null -w %{http_code} http://host.docker.internal:${port}/organization)"; `
          + `echo "token $(printenv BERTH_PLATFORM_TOKEN | cut -c1-5)"` } } },
        { text: 'looked at the platform' },
      ],
    });
    const w = await workflow('platform');
    const started = await berth.api('POST', `/agenticWorkflow/${w.id}/run`);
    const run = await finalRun(w.id, started.body.id);
    const lines = await runLog(w.id, run.id);
    assert.equal(run.status, 'SUCCEEDED', `${run.message}\n${lines.join('\n')}`);
    assert.ok(lines.some((l) => /berth's MCP server is offered to the agent as "berth" \(reading tools/.test(l)), lines.join('\n'));
    assert.ok(lines.some((l) => l.startsWith('tool call: mcp__berth__list_services')), lines.join('\n'));
    assert.ok(lines.some((l) => l.startsWith('tool call: mcp__berth__get_service')), lines.join('\n'));
    const listed = lines.find((l) => l.startsWith('tool result (mcp__berth__list_services)')) ?? '';
    assert.match(listed, new RegExp(w.id), 'the workflow itself is in what the run reaches');
    const got = lines.find((l) => l.startsWith('tool result (mcp__berth__get_service)')) ?? '';
    assert.match(got, /settings/, `get_service answered the agent:\n${lines.filter((l) => l.includes('get_service')).join('\n')}`);
    assert.ok((await model.requests()).some((r) => JSON.stringify(r.body).includes('public_urls')), 'and its answer went back to the model');
    const bash = lines.find((l) => l.startsWith('tool result (Bash)')) ?? '';
    assert.match(bash, /other path 403/, 'the proxy lets through berth\'s /mcp only, not the rest of the host');
    assert.match(bash, /token brun_/, 'the credential is in the agent\'s environment');
    assert.ok(!lines.join('\n').match(/brun_[A-Za-z0-9_-]{20,}/), 'the credential never appears in the log');
  });

  test('a refused key ends FAILED with the endpoint\'s refusal, quickly', async () => {
    const w = await workflow('badkey', { model: { type: 'CLAUDE', api_key: 'bad-key', settings: JSON.stringify({ base_url: 'http://model:8080' }) } });
    const started = await berth.api('POST', `/agenticWorkflow/${w.id}/run`);
    const run = await finalRun(w.id, started.body.id, 120_000);
    assert.equal(run.status, 'FAILED');
    assert.match(run.message, /401|Invalid API key/i, run.message);
    assert.ok(run.duration_ms < 60_000, `failed after ${run.duration_ms} ms`);
    assert.deepEqual(await leftOf(run.id), []);
  });

  test('cancel kills the run: CANCELED, nothing left', async () => {
    await model.setScripts({ slow: [{ sleep_ms: 120_000, text: 'too late' }] });
    const w = await workflow('slow');
    const started = await berth.api('POST', `/agenticWorkflow/${w.id}/run`);
    await eventually(async () => (await runLog(w.id, started.body.id)).some((l) => l.startsWith('Agent started')) || null, 120_000, 300);
    const canceled = await berth.api('POST', `/agenticWorkflow/${w.id}/run/${started.body.id}/cancel`);
    assert.equal(canceled.status, 202, JSON.stringify(canceled.body));
    assert.equal(canceled.body.status, 'CANCELED');
    await eventually(async () => (await leftOf(started.body.id)).length === 0 || null, 30_000, 300);
    const again = await berth.api('POST', `/agenticWorkflow/${w.id}/run/${started.body.id}/cancel`);
    assert.equal(again.status, 409);
  });

  test('a docker_fragment that does not build ends FAILED with the builder\'s words', async () => {
    const w = await workflow('fragment', { docker_fragment: 'RUN echo building the fragment && exit 3' });
    const started = await berth.api('POST', `/agenticWorkflow/${w.id}/run`);
    const run = await finalRun(w.id, started.body.id);
    assert.equal(run.status, 'FAILED');
    assert.match(run.message, /docker_fragment did not build/);
    assert.match(run.message, /returned a non-zero code: 3/);
    assert.ok((await runLog(w.id, run.id)).some((l) => l.includes('building the fragment')));
    assert.deepEqual(await leftOf(run.id), []);
  });

  test('10 concurrent CLONE_ENVIRONMENT runs all succeed, each in its own copy with its own model gateway, and leave nothing behind', async () => {
    const registry = await startTestRegistry(docker);
    let clonesEnv: string | undefined;
    try {
      // the model gateway is a service of the environment, so each throwaway copy runs its own
      await registry.push(SCRIPTED_MODEL_IMAGE, 'scripted-model', '1');
      const reg = await berth.api('POST', `/organization/${orgId}/containerRegistry`, {
        name: `local-${Date.now()}`, kind: 'GENERIC_CR', url: `http://${registry.address}`, config: { username: registry.username, password: registry.password },
      });
      assert.equal(reg.status, 201, JSON.stringify(reg.body));
      clonesEnv = (await berth.api('POST', `/project/${projectId}/environment`, { name: 'clones', mode: 'DEVELOPMENT' })).body.id as string;
      const gateway = await berth.api('POST', `/environment/${clonesEnv}/container`, {
        name: 'model', registry_id: reg.body.id, image_name: 'scripted-model', tag: '1', ports: [{ internal_port: 8080, publicly_accessible: false }], memory: 128, cpu: 250,
      });
      assert.equal(gateway.status, 201, JSON.stringify(gateway.body));
      assert.equal((await berth.settle((await berth.api('POST', `/container/${gateway.body.id}/deploy`)).body.id)).status, 'DEPLOYED');
      const created = await berth.api('POST', `/environment/${clonesEnv}/agenticWorkflow`, {
        name: 'parallel', execution_mode: 'CLONE_ENVIRONMENT', agent_prompt: 'Answer ok.', context_service_ids: [gateway.body.id],
        model: { type: 'CLAUDE', api_key: API_KEY, settings: JSON.stringify({ base_url: 'http://model:8080', max_turns: 3, timeout_seconds: 300 }) },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const w = created.body;
      const started = await Promise.all(Array.from({ length: 10 }, (_, i) => fetch(`${berth.process.url}${hookPath(w.webhook.url)}`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ n: i }),
      }).then(async (r) => { assert.equal(r.status, 202); return (await r.json()) as { id: string }; })));
      const finals = await Promise.all(started.map((r) => finalRun(w.id, r.id, 900_000)));
      for (const run of finals) assert.equal(run.status, "SUCCEEDED", `${run.message}\n${(await runLog(w.id, run.id).catch((e) => [String(e)])).join("\n")}`);
      assert.deepEqual(finals.map((r) => r.result), Array(10).fill('ok'));
      const copies = new Set(finals.map((r) => r.clone_environment_id));
      assert.equal(copies.size, 10, 'each run had its own copy');
      // the copies go with their runs: no environment, container or network of theirs is left
      await eventually(async () => {
        const envs = (await berth.api('GET', `/project/${projectId}/environment`)).body.results.map((e: { id: string }) => e.id);
        return [...copies].every((c) => !envs.includes(c)) || null;
      }, 180_000, 500);
      await eventually(async () => {
        for (const c of copies) {
          if ((await docker.listContainers({ all: true, filters: { label: [`berth.environment_id=${c}`] } })).length) return null;
          if ((await docker.listNetworks({ filters: { label: [`berth.environment_id=${c}`] } })).length) return null;
        }
        return true;
      }, 180_000, 1000);
      for (const run of finals) {
        assert.deepEqual(await leftOf(run.id), []);
        assert.ok((await runLog(w.id, run.id)).includes('result: ok'), 'the transcript outlives the copy it ran in');
      }
    } finally {
      if (clonesEnv) await berth.api('DELETE', `/environment/${clonesEnv}`).catch(() => {});
      await registry.close();
    }
  });
});
