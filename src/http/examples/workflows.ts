// Request examples of agentic workflows and what they use (LLM providers, MCP connectors, a run's
// trigger payload) and of organization webhooks. Keyed by operationId; /openapi.json shows them
// and test/workflows and test/webhooks send them (docs/decisions/0407).
import { frozen } from './common.ts';

const TRIAGE_PROMPT = 'Read the issues of acme/shop opened since the last run. Label each one (bug, feature, question), '
  + 'ask for a reproduction when a bug report has none, and post a summary of what you did.';

const triage = {
  name: 'Nightly triage',
  description: 'Labels and answers the issues opened during the day',
  agent_prompt: TRIAGE_PROMPT,
  model: { type: 'CLAUDE', api_key: 'sk-ant-your-api-key', settings: '{"model":"claude-sonnet-4-5","max_turns":40}' },
  project_repositories: [{ url: 'https://github.com/acme/shop.git', branch: 'main' }],
  governance: { host_allowlist: ['api.github.com', 'github.com'] },
  resources: { cpu_milli: 1000, ram_mib: 2048, gpu: 0, storage_gib: 5 },
  schedule: { cron_expression: '0 2 * * *', timezone: 'Europe/Paris' },
  outputs: [{
    name: 'team-chat',
    url: 'https://chat.acme.example.com/hooks/triage',
    instructions: 'One line per issue: its number, the label given and why',
  }],
  webhook_ip_allowlist: ['192.0.2.0/24', '2001:db8::/32'],
  execution_mode: 'IN_PLACE',
};

export const workflowExamples = frozen({
  createLlmProvider: {
    name: 'Anthropic',
    description: 'The Claude account of the organization',
    type: 'CLAUDE',
    credential: 'sk-ant-your-api-key',
  },
  editLlmProvider: { description: 'Claude for every workflow of the organization' },

  createMcpServer: {
    name: 'GitHub',
    description: 'Issues and pull requests of the acme repositories',
    url: 'https://api.githubcopilot.com/mcp/',
    headers: { Authorization: 'Bearer your-github-token' },
  },
  editMcpServer: {
    name: 'GitHub',
    url: 'https://api.githubcopilot.com/mcp/',
    headers: { Authorization: 'Bearer your-rotated-github-token' },
  },

  createAgenticWorkflow: triage,
  editAgenticWorkflow: {
    name: 'Nightly triage',
    agent_prompt: `${TRIAGE_PROMPT} Skip the issues labelled wontfix.`,
    model: { type: 'CLAUDE', settings: '{"model":"claude-sonnet-4-5","max_turns":60}' },
    schedule: { cron_expression: '0 1 * * *', timezone: 'Europe/Paris' },
  },
  startAgenticWorkflowRun: {
    action: 'opened',
    issue: { number: 1347, title: 'Checkout answers 502 on carts of more than 50 items', html_url: 'https://github.com/acme/shop/issues/1347' },
  },

  createOrganizationWebhook: {
    kind: 'STANDARD',
    target_url: 'https://hooks.acme.example.com/berth',
    description: 'Production deployments, for the on-call channel',
    events: ['DEPLOYMENT_STARTED', 'DEPLOYMENT_SUCCEEDED', 'DEPLOYMENT_FAILED'],
    project_names_filter: ['shop*'],
    environment_types_filter: ['PRODUCTION'],
  },
  editOrganizationWebhook: { enabled: false, description: 'Paused while the on-call channel moves' },
});
