// Agentic workflow request and response shapes (the seed's tables). Request schemas carry no
// `default`s: the service applies the seed's defaults on creation and keeps stored values for
// members a PUT omits (docs/decisions/0004), which it could not tell apart if Ajv filled them in.
import { Type, type Static } from 'typebox';
import { Paginated, Timestamp, Uuid } from '../../http/schemas.ts';
import { MAX_COST_USD_LIMIT, MODEL_SETTINGS_DEFAULTS as D, MODEL_SETTINGS_RANGES as R } from './model-settings.ts';

const Str = (max = 65536) => Type.String({ maxLength: max });
const Opt = <T extends Parameters<typeof Type.Optional>[0]>(s: T) => Type.Optional(s);
const Count = Type.Integer({ minimum: 0, maximum: 1_000_000 });

const MODEL_TYPES = ['CLAUDE', 'BEDROCK'] as const;
const EXECUTION_MODES = ['IN_PLACE', 'CLONE_ENVIRONMENT'] as const;

const SETTINGS_DESCRIPTION = 'JSON text, default empty (every member at its default); checked on save (400 listing every problem). Members, '
  + 'each optional (null or absent: the default): `model` (string: model id passed to the agent harness, e.g. claude-sonnet-4-5; '
  + 'default: the harness\'s own), `base_url` (http or https URL of an Anthropic-compatible endpoint such as a corporate proxy '
  + 'or LiteLLM; default: the LLM provider\'s base_url, else Anthropic\'s API, or Bedrock\'s endpoint for BEDROCK; it wins over the '
  + `provider's), \`max_turns\` (integer ${R.max_turns[0]}–${R.max_turns[1]}, default ${D.max_turns}): the harness stops the agent after that many `
  + `turns, \`timeout_seconds\` (integer ${R.timeout_seconds[0]}–${R.timeout_seconds[1]}, default ${D.timeout_seconds}: the run is killed after it), `
  + `\`max_cost_usd\` (number of US dollars above 0, at most ${MAX_COST_USD_LIMIT}; default none: no spend cap): the harness stops the agent once `
  + 'its model calls have cost that much, as the harness prices them by model id (checked after each model call, so the last call can go past it). '
  + 'A run stopped by its turn or spend cap is FAILED, its message naming the cap and the member that sets it. '
  + 'Example: {"model": "claude-sonnet-4-5", "max_turns": 50, "max_cost_usd": 2.5}';
const MCP_DESCRIPTION = 'raw JSON text, default empty (no servers): the agent harness\'s MCP configuration (Claude Code\'s --mcp-config), '
  + 'checked on save (400 listing every problem with its JSON path). Shape: {"mcpServers": {NAME: server}}, NAME 1–64 of A-Z a-z 0-9 _ -; '
  + 'a stdio server is {"command": string, "args"?: [string], "env"?: {string: string}, "type"?: "stdio"}, a remote one '
  + '{"type": "http" | "sse", "url": http(s) URL, "headers"?: {string: string}}. VS Code\'s form (.vscode/mcp.json) is accepted too: '
  + '{"servers": {NAME: server}, "inputs"?: []}, the same servers; its inputs and ${input:…} references are refused (a run is unattended). '
  + 'Kept and returned as written. Attached connectors (mcp_servers) are added to it at run time';

const ModelType = Type.Union(MODEL_TYPES.map((v) => Type.Literal(v)));
const ExecutionMode = Type.Union(EXECUTION_MODES.map((v) => Type.Literal(v)), { description: 'IN_PLACE (default) or CLONE_ENVIRONMENT' });

const McpServerRef = Type.Object({
  id: Uuid,
  required: Type.Optional(Type.Boolean({ description: 'default false; a required connector must be present at creation' })),
}, { additionalProperties: false });

const Header = Type.Object({ name: Type.String({ minLength: 1, maxLength: 256 }), value: Str(8192) }, { additionalProperties: false });

const Output = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255 }),
  url: Opt(Type.Union([Str(2048), Type.Null()])),
  headers: Opt(Type.Array(Header, { maxItems: 50 })),
  instructions: Opt(Str()),
}, { additionalProperties: false });

const ModelRequest = Type.Object({
  type: ModelType,
  api_key: Opt(Type.String({ maxLength: 16384, writeOnly: true, description: 'write-only; omitted or empty on edit: the stored key is kept' })),
  settings: Opt(Type.String({ maxLength: 65536, description: SETTINGS_DESCRIPTION })),
  llm_provider_id: Opt(Type.Union([Uuid, Type.Null()])),
}, { additionalProperties: false });

const ProjectRepository = Type.Object({
  url: Type.String({ minLength: 1, maxLength: 2048 }),
  branch: Type.String({ minLength: 1, maxLength: 255 }),
  git_token_id: Opt(Type.Union([Uuid, Type.Null()])),
}, { additionalProperties: false });

/** berth's own MCP server in a run (decision 0197): NONE, READ (reading tools; the default) or ACT (acting tools too) */
const PLATFORM_ACCESS = ['NONE', 'READ', 'ACT'] as const;
export type PlatformAccess = (typeof PLATFORM_ACCESS)[number];
const PlatformAccessField = Type.Union([Type.Literal('NONE'), Type.Literal('READ'), Type.Literal('ACT')], {
  description: 'what the run\'s agent may do through berth\'s own MCP server, scoped to the run\'s environment and to the workflow and its context_service_ids: NONE (no connection), READ (reading tools; the default) or ACT (also deploy, restart, stop, roll back, set variables, start runs)',
});

const Governance = Type.Object({
  host_allowlist: Type.Array(Type.String({ maxLength: 253 }), { maxItems: 500 }),
  platform_access: Opt(PlatformAccessField),
}, { additionalProperties: false });

const Resources = Type.Object({ cpu_milli: Count, ram_mib: Count, gpu: Count, storage_gib: Count }, { additionalProperties: false });

/** berth's extension (issue 40, decision 0750): a run per pull request of a repository, against its preview */
const PullRequestTrigger = Type.Object({
  repository_url: Type.String({ minLength: 1, maxLength: 2048, description: 'the repository whose pull requests start runs (https, ssh or scp-like URL; compared as deploy on push compares them)' }),
  base_branch: Opt(Type.Union([Type.String({ minLength: 1, maxLength: 255 }), Type.Null()], { description: 'only pull requests into this branch; null or absent: any branch a previewed service tracks' })),
}, { additionalProperties: false, description: 'berth extension: when a pull request of the repository has its preview environment (auto_preview) deployed and healthy at its head commit, a run starts against that preview (CLONE_ENVIRONMENT semantics on the preview: its context services are the preview\'s, berth\'s MCP server is scoped to it), with the pull request in its payload and the repository checked out at the head; a new commit cancels the stale run and starts one for the new head, closing the pull request cancels it. The verdict is posted to the pull request (a commit status and a line in berth\'s comment). null: no pull request runs (the default)' });

const ScheduleRequest = Type.Object({
  cron_expression: Type.String({ maxLength: 255, description: 'five fields, Kubernetes CronJob syntax; at most one firing every 5 minutes' }),
  timezone: Type.String({ maxLength: 64, description: 'IANA time zone, e.g. Europe/Paris' }),
}, { additionalProperties: false });

export const AgenticWorkflowRequest = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255, pattern: '\\S' }),
  description: Opt(Str()),
  webhook_ip_allowlist: Opt(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 200, description: 'CIDR ranges (IPv4 or IPv6); empty: every source' })),
  docker_fragment: Opt(Str()),
  enabled: Opt(Type.Boolean()),
  mcp: Opt(Type.String({ maxLength: 65536, description: MCP_DESCRIPTION })),
  mcp_server_ids: Opt(Type.Array(Uuid, { maxItems: 100, deprecated: true })),
  mcp_servers: Opt(Type.Array(McpServerRef, { maxItems: 100 })),
  context_service_ids: Opt(Type.Array(Uuid, { maxItems: 100 })),
  outputs: Opt(Type.Array(Output, { maxItems: 50 })),
  model: Opt(Type.Union([ModelRequest, Type.Null()])),
  project_repositories: Opt(Type.Array(ProjectRepository, { maxItems: 50 })),
  agent_prompt: Opt(Str(200_000)),
  governance: Opt(Type.Union([Governance, Type.Null()])),
  resources: Opt(Type.Union([Resources, Type.Null()])),
  schedule: Opt(Type.Union([ScheduleRequest, Type.Null()])),
  execution_mode: Opt(ExecutionMode),
  pull_requests: Opt(Type.Union([PullRequestTrigger, Type.Null()])),
}, { additionalProperties: false });
export type AgenticWorkflowRequest = Static<typeof AgenticWorkflowRequest>;

const OutputResponse = Type.Object({
  name: Type.String(), url: Type.Union([Type.String(), Type.Null()]),
  headers: Type.Array(Type.Object({ name: Type.String(), value: Type.String() })), instructions: Type.String(),
});

export const AgenticWorkflow = Type.Object({
  id: Uuid,
  created_at: Timestamp,
  updated_at: Type.Union([Timestamp, Type.Null()]),
  service_type: Type.Literal('AGENTIC_WORKFLOW'),
  environment: Type.Object({ id: Uuid }),
  name: Type.String(),
  slug: Type.String(),
  description: Type.String(),
  webhook_ip_allowlist: Type.Array(Type.String()),
  docker_fragment: Type.String(),
  enabled: Type.Boolean(),
  mcp: Type.String({ description: 'raw JSON text: {"mcpServers": {…}} (see the request), or empty' }),
  mcp_server_ids: Type.Array(Uuid, { deprecated: true }),
  mcp_servers: Type.Array(Type.Object({ id: Uuid, required: Type.Boolean() })),
  context_service_ids: Type.Array(Uuid),
  outputs: Type.Array(OutputResponse),
  model: Type.Object({
    type: Type.String(), settings: Type.String({ description: 'JSON text: model, base_url, max_turns, timeout_seconds, max_cost_usd (see the request), or empty' }),
    llm_provider_id: Type.Union([Uuid, Type.Null()], { description: 'null when the workflow carries its own api_key (or has no credential)' }),
  }),
  project_repositories: Type.Array(Type.Object({ url: Type.String(), branch: Type.String(), git_token_id: Type.Union([Uuid, Type.Null()]) })),
  agent_prompt: Type.String(),
  governance: Type.Object({ host_allowlist: Type.Array(Type.String()), platform_access: PlatformAccessField }),
  resources: Type.Object({ cpu_milli: Type.Integer(), ram_mib: Type.Integer(), gpu: Type.Integer(), storage_gib: Type.Integer() }),
  webhook: Type.Object({ url: Type.String() }),
  schedule: Type.Union([Type.Object({ cron_expression: Type.String(), timezone: Type.String(), next_run_at: Type.Union([Timestamp, Type.Null()]) }), Type.Null()]),
  execution_mode: Type.String(),
  pull_requests: Type.Union([Type.Object({ repository_url: Type.String(), base_branch: Type.Union([Type.String(), Type.Null()]) }), Type.Null()], {
    description: 'berth extension: the pull requests that start runs against their previews (see the request), or null',
  }),
});
export type AgenticWorkflow = Static<typeof AgenticWorkflow>;

export const AgenticWorkflowList = Paginated(AgenticWorkflow);
