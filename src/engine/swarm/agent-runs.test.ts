import { test } from 'node:test';
import assert from 'node:assert/strict';
import { agentRunSpecs } from './agent-runs.ts';
import type { AgentRunSpec } from '../agent/spec.ts';

const spec: AgentRunSpec = {
  runId: 'r-1', workflowId: 'w', workflowSlug: 'triage', environmentId: 'e', projectId: 'p', organizationId: 'o', prompt: 'do it',
  model: { kind: 'anthropic', modelId: null, baseUrl: 'http://model:8080', region: null, env: { ANTHROPIC_API_KEY: 'sk-secret' } },
  maxTurns: 5, maxCostUsd: null, timeoutSeconds: 60, mcpServers: {}, mcpEnv: {}, repositories: [], context: { services: [] }, hostAllowlist: [],
  resources: { cpuMilli: 500, ramMib: 256 }, dockerFragment: '', secrets: ['sk-secret'],
} as unknown as AgentRunSpec;
const specs = agentRunSpecs(spec, { image: 'agent:1', nodeId: 'node-a', internal: 'berth-run-r-1', environmentNetwork: 'berth-env-e', hosts: ['model'], urls: [], labels: { 'berth.run_id': 'r-1' } });

test('a run and its proxy are pinned to the same node; the run is a one-shot job that never restarts', () => {
  for (const s of [specs.run, specs.proxy]) {
    assert.deepEqual(s.TaskTemplate.Placement, { Constraints: ['node.id==node-a'] });
    assert.deepEqual(s.TaskTemplate.RestartPolicy, { Condition: 'none' });
  }
  assert.deepEqual(specs.run.Mode, { ReplicatedJob: { MaxConcurrent: 1, TotalCompletions: 1 } });
  assert.deepEqual(specs.proxy.Mode, { Replicated: { Replicas: 1 } });
  assert.deepEqual([specs.run.Labels['berth.role'], specs.proxy.Labels['berth.role']], ['agent-run', 'agent-egress']);
});

test('the run is on its internal network only; the proxy, alias egress, joins it and the environment', () => {
  assert.deepEqual(specs.run.TaskTemplate.Networks, [{ Target: 'berth-run-r-1' }]);
  assert.deepEqual(specs.proxy.TaskTemplate.Networks, [{ Target: 'berth-run-r-1', Aliases: ['egress'] }, { Target: 'berth-env-e' }]);
  assert.ok(specs.run.TaskTemplate.ContainerSpec.Env.includes('HTTPS_PROXY=http://egress:3128'));
});

test('the run waits for its workspace, is limited and reserved as the workflow says, and drops every capability', () => {
  assert.match(specs.run.TaskTemplate.ContainerSpec.Command[2]!, /^while \[ ! -e \/berth\/\.start \]; do sleep 0\.1; done; exec claude/);
  assert.deepEqual(specs.run.TaskTemplate.Resources, {
    Limits: { NanoCPUs: 500_000_000, MemoryBytes: 256 * 1024 * 1024, Pids: 4096 }, Reservations: { NanoCPUs: 500_000_000, MemoryBytes: 256 * 1024 * 1024 },
  });
  assert.deepEqual(specs.run.TaskTemplate.ContainerSpec.CapabilityDrop, ['ALL']);
  assert.equal(specs.run.TaskTemplate.ContainerSpec.User, 'agent');
  assert.ok(!JSON.stringify([specs.run.Labels, specs.run.TaskTemplate.ContainerSpec.Command, specs.run.TaskTemplate.ContainerSpec.Args]).includes('sk-secret'), 'the key is in the environment only');
});
