// The run container's command line, environment and files, from the run's spec: pure. The prompt
// goes through stdin (from /berth/prompt.md), the credentials and connector headers through the
// environment only; argv carries nothing secret.
import type { AgentRunSpec } from './spec.ts';

/** claude's arguments (after `claude`); the prompt is read from stdin */
export function agentArgs(spec: AgentRunSpec): string[] {
  const args = ['-p', '--output-format', 'stream-json', '--verbose', '--max-turns', String(spec.maxTurns), '--permission-mode', 'bypassPermissions'];
  if (typeof spec.maxCostUsd === 'number') args.push('--max-budget-usd', String(spec.maxCostUsd));
  if (spec.model.modelId) args.push('--model', spec.model.modelId);
  if (Object.keys(spec.mcpServers).length > 0) args.push('--mcp-config', '/berth/mcp.json', '--strict-mcp-config');
  return args;
}

/** a variable name from a service name: BERTH_SERVICE_<NAME>_… */
export function envName(name: string): string {
  return name.toUpperCase().replace(/[^A-Z0-9]+/g, '_').replace(/^_+|_+$/g, '') || 'SERVICE';
}

export function agentEnv(spec: AgentRunSpec, proxyUrl: string): Record<string, string> {
  const env: Record<string, string> = {
    HTTP_PROXY: proxyUrl, HTTPS_PROXY: proxyUrl, http_proxy: proxyUrl, https_proxy: proxyUrl, NO_PROXY: 'localhost,127.0.0.1', no_proxy: 'localhost,127.0.0.1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_AUTOUPDATER: '1', DISABLE_TELEMETRY: '1', DISABLE_ERROR_REPORTING: '1',
    // MCP tools listed to the model directly rather than behind a search tool
    ENABLE_TOOL_SEARCH: 'false',
    // bounded retries: a run is bounded by its own timeout, and a refused key must not retry for minutes
    CLAUDE_CODE_MAX_RETRIES: '3',
    GIT_TERMINAL_PROMPT: '0',
    BERTH_RUN_ID: spec.runId, BERTH_WORKFLOW_ID: spec.workflowId, BERTH_ENVIRONMENT_ID: spec.environmentId,
    BERTH_CONTEXT_FILE: '/berth/context.json',
  };
  if (spec.model.kind === 'anthropic') {
    if (spec.model.baseUrl) env.ANTHROPIC_BASE_URL = spec.model.baseUrl.replace(/\/+$/, '');
  } else {
    env.CLAUDE_CODE_USE_BEDROCK = '1';
    if (spec.model.region) env.AWS_REGION = spec.model.region;
    if (spec.model.baseUrl) env.ANTHROPIC_BEDROCK_BASE_URL = spec.model.baseUrl.replace(/\/+$/, '');
  }
  const used = new Set<string>();
  for (const s of spec.context.services) {
    // two names that make the same variable name (my-db, my.db) keep apart: the second gets _2
    let key = `BERTH_SERVICE_${envName(s.name)}`;
    for (let i = 2; used.has(key); i++) key = `BERTH_SERVICE_${envName(s.name)}_${i}`;
    used.add(key);
    env[`${key}_HOST`] = s.host;
    env[`${key}_TYPE`] = s.type;
    env[`${key}_STATUS`] = s.status;
    if (s.ports.length) env[`${key}_PORT`] = String(s.ports[0]);
    if (s.public_url) env[`${key}_URL`] = s.public_url;
  }
  return { ...env, ...spec.mcpEnv, ...spec.model.env };
}

export function mcpConfigFile(spec: AgentRunSpec): string | null {
  if (Object.keys(spec.mcpServers).length === 0) return null;
  return `${JSON.stringify({ mcpServers: spec.mcpServers }, null, 2)}\n`;
}

export function contextFile(spec: AgentRunSpec): string {
  return `${JSON.stringify({ run_id: spec.runId, agentic_workflow_id: spec.workflowId, environment_id: spec.environmentId, services: spec.context.services }, null, 2)}\n`;
}
