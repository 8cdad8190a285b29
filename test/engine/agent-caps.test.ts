// A run's caps on the Docker engine, through berth's API: Claude Code (the pinned harness) in its
// run container against the scripted model, stopped by its turn cap (model.settings.max_turns)
// and by its spend cap (model.settings.max_cost_usd, --max-budget-usd; the harness prices the
// scripted model's usage, 100 tokens in and 20 out a call, by model id). Each run is FAILED and its
// message, in the API and in the run's log, names the cap that stopped it and where it is set; a
// run under both caps succeeds. Only the model is scripted (docs/decisions/0747).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { networkName } from '../../src/engine/docker/naming.ts';
import { NO_DOCKER, testDocker } from '../support/docker.ts';
import { agentBaseImage, removeByLabel, startScriptedModel, type ScriptedModel } from '../support/agent-fixtures.ts';
import { startEngineBerth, type EngineBerth } from '../support/engine-berth.ts';
import { eventually } from '../support/harness.ts';

const found = await testDocker();
const API_KEY = 'sk-ant-test-key-caps-3b7e1d';

describe('agent run caps on the docker engine', { skip: found ? false : NO_DOCKER, timeout: 1_200_000 }, () => {
  const docker = found?.docker!;
  let berth: EngineBerth;
  let model: ScriptedModel;
  let envId: string;

  before(async () => {
    const base = await agentBaseImage(docker);
    berth = await startEngineBerth(found!.host, { AGENT_BASE_IMAGE: base });
    const orgId = (await berth.api('GET', '/organization')).body.results[0].id;
    const projectId = (await berth.api('POST', `/organization/${orgId}/project`, { name: `caps-${Date.now()}` })).body.id;
    envId = (await berth.api('POST', `/project/${projectId}/environment`, { name: 'caps', mode: 'DEVELOPMENT' })).body.id;
    model = await startScriptedModel(docker, { network: networkName(envId), alias: 'model' });
  }, { timeout: 900_000 });

  after(async () => {
    await removeByLabel(docker).catch(() => {});
    if (envId && berth) {
      await berth.api('DELETE', `/environment/${envId}`).catch(() => {});
      await eventually(async () => (await docker.listContainers({ all: true, filters: { label: [`berth.environment_id=${envId}`] } })).length === 0 || null, 60_000, 500).catch(() => {});
    }
    await removeByLabel(docker).catch(() => {});
    await berth?.close();
  });

  /** a run of a new workflow following script `name` with these model.settings; its final state and log */
  const run = async (name: string, settings: Record<string, unknown>) => {
    const created = await berth.api('POST', `/environment/${envId}/agenticWorkflow`, {
      name, agent_prompt: `Check the disk. [script:${name}]`,
      model: { type: 'CLAUDE', api_key: API_KEY, settings: JSON.stringify({ base_url: 'http://model:8080', timeout_seconds: 300, ...settings }) },
      resources: { cpu_milli: 1000, ram_mib: 1024, gpu: 0, storage_gib: 0 },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const started = await berth.api('POST', `/agenticWorkflow/${created.body.id}/run`);
    assert.equal(started.status, 202, JSON.stringify(started.body));
    const final = await eventually(async () => {
      const r = (await berth.api('GET', `/agenticWorkflow/${created.body.id}/run/${started.body.id}`)).body;
      return ['SUCCEEDED', 'FAILED', 'CANCELED'].includes(r.status) ? r : null;
    }, 240_000, 300);
    const lines: string[] = (await berth.api('GET', `/agenticWorkflow/${created.body.id}/run/${started.body.id}/log?page_size=100`)).body.results
      .map((l: { message: string }) => l.message);
    return { run: final, lines };
  };
  const modelCalls = async () => (await model.requests()).filter((r) => /\/v1\/messages(\?|$)/.test(r.path)).length;

  test('the turn cap: FAILED after one turn, the second tool call never made; the message names max_turns and its value', async () => {
    await model.reset();
    await model.setScripts({
      turns: [
        { tool_use: { name: 'Bash', input: { command: 'echo FIRST-CALL' } } },
        { tool_use: { name: 'Bash', input: { command: 'echo SECOND-CALL' } } },
        { text: 'done' },
      ],
    });
    const { run: r, lines } = await run('turns', { max_turns: 1 });
    const log = lines.join('\n');
    assert.equal(r.status, 'FAILED', `${r.message}\n${log}`);
    assert.equal(r.message, 'The agent stopped at its turn cap: 1 turn (model.settings.max_turns)', log);
    assert.ok(lines.some((l) => l.startsWith('Starting the agent (max 1 turns, no spend cap,')), log);
    assert.ok(lines.some((l) => l.startsWith('Agent finished (error_max_turns, error)')), log);
    assert.ok(lines.some((l) => l.endsWith('The agent stopped at its turn cap: 1 turn (model.settings.max_turns)')), `the run's log says it too:\n${log}`);
    assert.ok(!log.includes('SECOND-CALL'), 'the agent stopped before its second turn');
    assert.equal(await modelCalls(), 1, 'one model call: the cap stopped the agent before the next');
  });

  test('the spend cap: FAILED once the harness prices the calls past it; the message names max_cost_usd, the cap and the spend', async () => {
    await model.reset();
    await model.setScripts({
      spend: [
        { tool_use: { name: 'Bash', input: { command: 'echo FIRST-CALL' } } },
        { tool_use: { name: 'Bash', input: { command: 'echo SECOND-CALL' } } },
        { tool_use: { name: 'Bash', input: { command: 'echo THIRD-CALL' } } },
        { text: 'done' },
      ],
    });
    const { run: r, lines } = await run('spend', { max_turns: 10, max_cost_usd: 0.0001 });
    const log = lines.join('\n');
    assert.equal(r.status, 'FAILED', `${r.message}\n${log}`);
    assert.ok(r.cost_usd > 0.0001, `the harness priced the calls: ${JSON.stringify(r)}`);
    const spent = r.cost_usd.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 6, useGrouping: false });
    assert.equal(r.message, `The agent stopped at its spend cap: $0.0001 (model.settings.max_cost_usd); it had spent $${spent}`, log);
    assert.ok(lines.some((l) => l.startsWith('Starting the agent (max 10 turns, spend cap $0.0001,')), log);
    assert.ok(lines.some((l) => l.startsWith('Agent finished (error_max_budget_usd, error)')), log);
    assert.ok(lines.some((l) => l.endsWith(r.message)), `the run's log says it too:\n${log}`);
    assert.ok(!log.includes('THIRD-CALL'), 'the agent stopped long before its script ran out');
    assert.ok(await modelCalls() < 4, 'the cap stopped the model calls');
  });

  test('a run under both caps succeeds: --max-budget-usd does not get in the way', async () => {
    await model.reset();
    await model.setScripts({ under: [{ tool_use: { name: 'Bash', input: { command: 'echo UNDER' } } }, { text: 'all good' }] });
    const { run: r, lines } = await run('under', { max_turns: 5, max_cost_usd: 5 });
    assert.equal(r.status, 'SUCCEEDED', `${r.message}\n${lines.join('\n')}`);
    assert.equal(r.result, 'all good');
    assert.equal(r.message, null);
    assert.ok(lines.some((l) => l.startsWith('Starting the agent (max 5 turns, spend cap $5.00,')), lines.join('\n'));
  });
});
