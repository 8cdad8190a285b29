// Unit tests of the run container's command line, environment and files: argv carries no prompt
// and no secret; the proxy, the model endpoint, Bedrock's mode, the context services and the
// connector headers reach the agent through the environment; the context file is JSON.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { agentArgs, agentEnv, contextFile, envName, mcpConfigFile } from './container-config.ts';
import type { AgentContextService, AgentRunSpec } from './spec.ts';

const API_KEY = 'sk-ant-api03-argv-test-9d7c5b3a1e';
const HEADER = 'Bearer mcp-header-secret-77d2';
const PROMPT = 'Triage the disk alert on db-1 and write what you did.';
const PROXY = 'http://egress:3128';

const service = (over: Partial<AgentContextService> = {}): AgentContextService => ({
  id: '11111111-1111-4111-8111-111111111111', name: 'model-gateway', type: 'CONTAINER', host: 'model-gateway', ports: [4000, 9090],
  public_url: 'http://model-gateway-env.localhost:8000', status: 'RUNNING', ...over,
});

const spec = (over: Partial<AgentRunSpec> = {}): AgentRunSpec => ({
  runId: 'aaaaaaaa-0000-4000-8000-000000000001', workflowId: 'bbbbbbbb-0000-4000-8000-000000000002', workflowSlug: 'triage',
  environmentId: 'cccccccc-0000-4000-8000-000000000003', projectId: 'dddddddd-0000-4000-8000-000000000004',
  organizationId: 'eeeeeeee-0000-4000-8000-000000000005', prompt: PROMPT,
  model: { kind: 'anthropic', modelId: null, baseUrl: null, env: { ANTHROPIC_API_KEY: API_KEY }, region: null },
  maxTurns: 30, maxCostUsd: null, timeoutSeconds: 1800, mcpServers: {}, mcpEnv: {}, repositories: [], context: { services: [] }, hostAllowlist: [],
  resources: { cpuMilli: 1000, ramMib: 2048 }, dockerFragment: '', secrets: [API_KEY], ...over,
});

const withConnector = (): Partial<AgentRunSpec> => ({
  mcpServers: {
    everything: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'] },
    GitHub: { type: 'http', url: 'https://api.githubcopilot.com/mcp/', headers: { Authorization: '${BERTH_MCP_0_HEADER_0}' } },
  },
  mcpEnv: { BERTH_MCP_0_HEADER_0: HEADER },
  secrets: [API_KEY, HEADER],
});

test('agentArgs: headless stream-json with the max turns; no --mcp-config without servers; --model only when set', () => {
  const args = agentArgs(spec({ maxTurns: 12 }));
  assert.equal(args[0], '-p');
  assert.deepEqual(args.slice(args.indexOf('--output-format'), args.indexOf('--output-format') + 2), ['--output-format', 'stream-json']);
  assert.ok(args.includes('--verbose'));
  assert.equal(args[args.indexOf('--max-turns') + 1], '12');
  assert.ok(!args.includes('--mcp-config'));
  assert.ok(!args.includes('--model'));

  const withModel = agentArgs(spec({ model: { kind: 'anthropic', modelId: 'claude-sonnet-4-5', baseUrl: null, env: {}, region: null } }));
  assert.equal(withModel[withModel.indexOf('--model') + 1], 'claude-sonnet-4-5');

  const withServers = agentArgs(spec(withConnector()));
  assert.equal(withServers[withServers.indexOf('--mcp-config') + 1], '/berth/mcp.json');
});

test('agentArgs: --max-budget-usd with the spend cap when there is one, none without', () => {
  assert.ok(!agentArgs(spec()).includes('--max-budget-usd'), 'maxCostUsd null: no spend cap');
  for (const [cap, arg] of [[0.5, '0.5'], [2.5, '2.5'], [0.0001, '0.0001'], [10000, '10000']] as const) {
    const args = agentArgs(spec({ maxCostUsd: cap }));
    assert.equal(args.filter((a) => a === '--max-budget-usd').length, 1);
    assert.equal(args[args.indexOf('--max-budget-usd') + 1], arg);
    // the turn cap stays beside it
    assert.equal(args[args.indexOf('--max-turns') + 1], '30');
  }
});

test('agentArgs: never the prompt nor a secret in argv', () => {
  for (const s of [spec(), spec(withConnector()), spec({ ...withConnector(), model: { kind: 'bedrock', modelId: 'anthropic.claude-sonnet-4-5', baseUrl: null,
    env: { AWS_ACCESS_KEY_ID: 'AKIAEXAMPLEKEYID0001', AWS_SECRET_ACCESS_KEY: 'aws-secret-access-key-value-0001' }, region: 'eu-west-3' } })]) {
    const argv = agentArgs(s).join('\u0000');
    assert.ok(!argv.includes(PROMPT), 'the prompt goes through stdin');
    assert.ok(!argv.includes('Triage the disk'));
    for (const secret of [API_KEY, HEADER, 'AKIAEXAMPLEKEYID0001', 'aws-secret-access-key-value-0001', ...s.secrets]) {
      assert.ok(!argv.includes(secret), `secret in argv: ${secret}`);
    }
  }
});

test('agentEnv: the proxy for every variant, Anthropic\'s base URL without its trailing slash, the key', () => {
  const env = agentEnv(spec({ model: { kind: 'anthropic', modelId: null, baseUrl: 'http://gateway:4000/anthropic///', env: { ANTHROPIC_API_KEY: API_KEY }, region: null } }), PROXY);
  for (const k of ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy']) assert.equal(env[k], PROXY, k);
  assert.equal(env.ANTHROPIC_BASE_URL, 'http://gateway:4000/anthropic');
  assert.equal(env.ANTHROPIC_API_KEY, API_KEY);
  assert.equal(env.CLAUDE_CODE_USE_BEDROCK, undefined);
  assert.equal(env.CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC, '1');
  assert.equal(env.BERTH_CONTEXT_FILE, '/berth/context.json');
  // no base URL: the harness's default endpoint (api.anthropic.com)
  assert.equal(agentEnv(spec(), PROXY).ANTHROPIC_BASE_URL, undefined);
});

test('agentEnv: Bedrock mode with its region, credentials and endpoint override; the proxy too', () => {
  const env = agentEnv(spec({
    model: {
      kind: 'bedrock', modelId: null, baseUrl: 'https://bedrock.vpce.example.aws/', region: 'eu-west-3',
      env: { AWS_ACCESS_KEY_ID: 'AKIAEXAMPLEKEYID0001', AWS_SECRET_ACCESS_KEY: 'aws-secret-access-key-value-0001', AWS_SESSION_TOKEN: 'tok' },
    },
  }), PROXY);
  for (const k of ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy']) assert.equal(env[k], PROXY, k);
  assert.equal(env.CLAUDE_CODE_USE_BEDROCK, '1');
  assert.equal(env.AWS_REGION, 'eu-west-3');
  assert.equal(env.ANTHROPIC_BEDROCK_BASE_URL, 'https://bedrock.vpce.example.aws');
  assert.equal(env.AWS_ACCESS_KEY_ID, 'AKIAEXAMPLEKEYID0001');
  assert.equal(env.AWS_SECRET_ACCESS_KEY, 'aws-secret-access-key-value-0001');
  assert.equal(env.AWS_SESSION_TOKEN, 'tok');
  assert.equal(env.ANTHROPIC_BASE_URL, undefined);
});

test('agentEnv: BERTH_SERVICE_<NAME>_HOST/PORT/URL/STATUS for each context service, names made into variable names', () => {
  const env = agentEnv(spec({
    context: {
      services: [
        service(),
        service({ id: '2', name: 'orders db.primary', type: 'DATABASE', host: 'orders-db-primary', ports: [5432], public_url: null, status: 'STOPPED' }),
        service({ id: '3', name: 'worker', type: 'JOB', host: 'worker', ports: [], public_url: null, status: 'READY' }),
      ],
    },
  }), PROXY);
  assert.equal(env.BERTH_SERVICE_MODEL_GATEWAY_HOST, 'model-gateway');
  assert.equal(env.BERTH_SERVICE_MODEL_GATEWAY_PORT, '4000');
  assert.equal(env.BERTH_SERVICE_MODEL_GATEWAY_URL, 'http://model-gateway-env.localhost:8000');
  assert.equal(env.BERTH_SERVICE_MODEL_GATEWAY_STATUS, 'RUNNING');
  assert.equal(env.BERTH_SERVICE_MODEL_GATEWAY_TYPE, 'CONTAINER');
  assert.equal(env.BERTH_SERVICE_ORDERS_DB_PRIMARY_HOST, 'orders-db-primary');
  assert.equal(env.BERTH_SERVICE_ORDERS_DB_PRIMARY_PORT, '5432');
  assert.equal(env.BERTH_SERVICE_ORDERS_DB_PRIMARY_STATUS, 'STOPPED');
  assert.equal(env.BERTH_SERVICE_ORDERS_DB_PRIMARY_URL, undefined, 'no public URL: no variable');
  assert.equal(env.BERTH_SERVICE_WORKER_PORT, undefined, 'no port: no variable');
  assert.equal(env.BERTH_SERVICE_WORKER_HOST, 'worker');
  for (const name of Object.keys(env)) assert.match(name, /^[A-Za-z_][A-Za-z0-9_]*$/, `not a variable name: ${name}`);
  assert.equal(envName('  --my.weird  name!! '), 'MY_WEIRD_NAME');
  assert.equal(envName('ünïcode'), 'N_CODE');
  assert.equal(envName('***'), 'SERVICE');
});

test('agentEnv: connector header values (mcpEnv) and the model\'s env are included; the MCP file holds only references', () => {
  const s = spec(withConnector());
  const env = agentEnv(s, PROXY);
  assert.equal(env.BERTH_MCP_0_HEADER_0, HEADER);
  assert.equal(env.ANTHROPIC_API_KEY, API_KEY);
  const file = mcpConfigFile(s);
  assert.ok(file);
  const parsed = JSON.parse(file) as { mcpServers: Record<string, { headers?: Record<string, string> }> };
  assert.equal(parsed.mcpServers.GitHub!.headers!.Authorization, '${BERTH_MCP_0_HEADER_0}');
  assert.ok(!file.includes(HEADER) && !file.includes(API_KEY));
  assert.equal(mcpConfigFile(spec()), null);
});

test('contextFile parses as JSON and names the run, the workflow, the environment and the services', () => {
  const services = [service(), service({ id: '2', name: 'db "quoted"\nname', host: 'db', ports: [5432], public_url: null })];
  const text = contextFile(spec({ context: { services } }));
  const doc = JSON.parse(text);
  assert.equal(doc.run_id, 'aaaaaaaa-0000-4000-8000-000000000001');
  assert.equal(doc.agentic_workflow_id, 'bbbbbbbb-0000-4000-8000-000000000002');
  assert.equal(doc.environment_id, 'cccccccc-0000-4000-8000-000000000003');
  assert.deepEqual(doc.services, services);
  assert.ok(!text.includes(API_KEY));
  assert.deepEqual(JSON.parse(contextFile(spec())).services, []);
});

test('agentEnv: two service names that make the same variable name keep apart', () => {
  const env = agentEnv(spec({ context: { services: [service({ name: 'my-db', host: 'my-db' }), service({ name: 'my.db', host: 'my-db-2' })] } }), PROXY);
  assert.equal(env.BERTH_SERVICE_MY_DB_HOST, 'my-db');
  assert.equal(env.BERTH_SERVICE_MY_DB_2_HOST, 'my-db-2');
});
