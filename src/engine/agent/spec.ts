// What an agent run needs from the control plane and what it gives back: pure data, filled by the
// workflows module (src/modules/workflows/agent-run.ts) and read by the drivers' runAgent. Secrets
// travel only in `env` members and `secrets`: the runner puts them in the container's environment,
// never in argv, a file or the image, and redacts every value of `secrets` from what it logs.

/** an MCP server entry in the harness's `mcpServers` shape (Claude Code --mcp-config) */
export type McpServerEntry =
  | { type?: 'stdio'; command: string; args?: string[]; env?: Record<string, string> }
  | { type: 'http' | 'sse'; url: string; headers?: Record<string, string> };

export interface AgentModel {
  /** CLAUDE: Anthropic's Messages API (or a compatible gateway at baseUrl); BEDROCK: the harness's Bedrock mode */
  kind: 'anthropic' | 'bedrock';
  /** the model id handed to the harness (--model); null: the harness's default */
  modelId: string | null;
  /** an Anthropic-compatible gateway (CLAUDE) or a Bedrock endpoint override (BEDROCK) */
  baseUrl: string | null;
  /** the credential as environment variables (ANTHROPIC_API_KEY, AWS_*…) */
  env: Record<string, string>;
  /** BEDROCK: the region the runtime endpoint is in */
  region: string | null;
}

export interface AgentRepository {
  /** the folder under /workspace the clone goes to */
  dir: string;
  url: string;
  branch: string;
  /** a commit of the branch to check out (a run per pull request: its head); null or absent: the branch's newest */
  commit?: string | null;
  /** the git token the host clones with (never put in the run container) */
  token: string | null;
  /** the basic-auth user name sent with the token when the URL has none */
  username?: string | null;
}

export interface AgentRunSpec {
  runId: string;
  workflowId: string;
  workflowSlug: string;
  /** the environment the run works in (the throwaway copy in CLONE_ENVIRONMENT mode) */
  environmentId: string;
  projectId: string;
  organizationId: string;
  /** the whole prompt: agent_prompt, the trigger, the outputs' instructions, the context */
  prompt: string;
  model: AgentModel;
  /** model.settings.max_turns: the harness stops the agent after that many turns (--max-turns) */
  maxTurns: number;
  /** model.settings.max_cost_usd: the harness stops the agent once its model calls cost that much
   * in US dollars (--max-budget-usd); null: no spend cap */
  maxCostUsd: number | null;
  timeoutSeconds: number;
  /** the raw `mcp` servers and the attached connectors, connector header values as ${VAR} references into mcpEnv */
  mcpServers: Record<string, McpServerEntry>;
  /** values the MCP configuration references (connector headers): environment only */
  mcpEnv: Record<string, string>;
  /** berth's own MCP endpoint when the run is given it (decision 0197): the proxy lets through
   * this exact URL, not its host */
  berthMcpUrl?: string | null;
  repositories: AgentRepository[];
  /** written to /berth/context.json; each service also as BERTH_SERVICE_<NAME>_* variables */
  context: { services: AgentContextService[] };
  /** governance.host_allowlist: hosts the agent may reach (besides what the run itself needs) */
  hostAllowlist: string[];
  resources: { cpuMilli: number; ramMib: number };
  dockerFragment: string;
  /** every secret value of this run: redacted from each log line */
  secrets: string[];
}

export interface AgentContextService {
  id: string;
  name: string;
  type: string;
  /** the internal DNS name other containers of the environment use */
  host: string;
  ports: number[];
  public_url: string | null;
  status: string;
}

export interface AgentRunOutcome {
  status: 'SUCCEEDED' | 'FAILED';
  /** why it failed (the model's, the builder's or the runner's words); null on success */
  message: string | null;
  result: string | null;
  numTurns: number | null;
  inputTokens: number | null;
  outputTokens: number | null;
  costUsd: number | null;
  durationMs: number;
}
