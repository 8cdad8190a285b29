// What a run of a workflow hands the engine (AgentRunSpec), read from the database when its
// deployment reaches the APPLY step: the model and its credential (the workflow's own api_key or
// its LLM provider's, opened here and only here), model.settings, the raw MCP servers and the
// attached connectors (header values as environment references), the repositories (a private
// one's git token unsealed for the clone on the host, and redacted from the run's log), the context
// services (their copies in CLONE_ENVIRONMENT mode), the prompt, a connection to berth's own MCP
// server with a credential minted for the run (governance.platform_access, decision 0197); and
// the run's outcome recorded.
import type { Queryable } from '../../db/db.ts';
import type { Sealer } from '../../lib/crypto.ts';
import { publicLinks, repositoryDirs, type AgentContextService, type AgentModel, type AgentRepository, type AgentRunOutcome, type AgentRunSpec, type McpServerEntry } from '../../engine/index.ts';
import { gitCredential } from '../git-tokens/git-credentials.ts';
import type { McpServersService } from '../mcp-servers/mcp-servers.service.ts';
import type { LlmProvidersService, ProviderRow } from '../llm-providers/llm-providers.service.ts';
import { composePrompt } from './agent-prompt.ts';
import { parseMcpConfig } from './mcp-config.ts';
import { effectiveBaseUrl, parseModelSettings } from './model-settings.ts';
import * as workflowsRepo from './workflows.repo.ts';
import { recordRunOutcome, runFactsByDeployment } from './runs.repo.ts';
import { repositoryTokenId } from './pull-request-runs.repo.ts';
import { repositoryKey } from '../git-push/git-push.rules.ts';
import type { ServicesService } from '../services/services.service.ts';
import { defaultSpec, platformAccessOf } from './workflows.rules.ts';
import type { RunCredentialsService } from '../run-credentials/run-credentials.service.ts';

export interface AgentRunDeps {
  db: Queryable; sealer: Sealer; ingress: { domain: string; port: number };
  /** the context services' rows (the services module's, given by the composition root) */
  services: Pick<ServicesService, 'rowsById' | 'rowsInEnvironment'>;
  /** the workflow's LLM provider and its attached connectors (those modules' services) */
  llmProviders: Pick<LlmProvidersService, 'find'>;
  mcpServers: Pick<McpServersService, 'findMany' | 'sealedHeaders'>;
  /** the run's credential to berth's MCP server (the run-credentials module's) */
  runCredentials: Pick<RunCredentialsService, 'mint'>;
  /** where the run's agent reaches berth's MCP server (AGENT_BERTH_URL); null: no berth connection */
  berthUrl: string | null;
  /** false on the simulated engine: it calls no model, so a workflow without a credential still runs there */
  requireCredential: boolean;
}

/** the spec to run, or why the run cannot start (a problem the user must fix) */
export type PreparedRun = { runId: string; spec: AgentRunSpec; notes: string[] } | { runId: string; problem: string };

/** the environment variable the berth connection's credential travels in (never in a file or argv) */
export const BERTH_TOKEN_VARIABLE = 'BERTH_PLATFORM_TOKEN';
/** a run's credential outlives its timeout by this much (image build, clones), then expires by itself */
const CREDENTIAL_MARGIN_SECONDS = 600;

/** the pull request a PULL_REQUEST run is for, from its payload (pull-request-runs.ts writes it) */
function pullRequestOf(run: { trigger: string; payload: unknown }): { repository_url: string; head_branch: string; head_commit: string } | null {
  const pr = run.trigger === 'PULL_REQUEST' ? (run.payload as { pull_request?: Record<string, unknown> } | null)?.pull_request : null;
  if (!pr || typeof pr.repository_url !== 'string' || typeof pr.head_branch !== 'string' || typeof pr.head_commit !== 'string') return null;
  return { repository_url: pr.repository_url, head_branch: pr.head_branch, head_commit: pr.head_commit };
}

/** a run per pull request may reach its preview: the hosts of the preview's service URLs, public and on its network (the payload names them) */
function previewHosts(run: { trigger: string; payload: unknown }): string[] {
  if (run.trigger !== 'PULL_REQUEST') return [];
  const services = (run.payload as { preview?: { services?: Array<{ url?: unknown; internal_url?: unknown }> } } | null)?.preview?.services ?? [];
  return services.flatMap((s) => [s.url, s.internal_url].flatMap((u) => {
    try { return typeof u === 'string' ? [new URL(u).hostname] : []; } catch { return []; }
  }));
}

/** the context services of the run's environment: by id, or (in a copy) the copy of the one named */
async function contextServices(deps: AgentRunDeps, ids: string[], environmentId: string): Promise<AgentContextService[]> {
  if (ids.length === 0) return [];
  const originals = await deps.services.rowsById(deps.db, ids);
  const names = originals.map((s) => s.name.toLowerCase());
  const here = await deps.services.rowsInEnvironment(deps.db, environmentId, ids, names);
  return originals.flatMap((o) => {
    const s = here.find((h) => h.id === o.id) ?? here.find((h) => h.name.toLowerCase() === o.name.toLowerCase());
    if (!s) return [];
    const ports = (Array.isArray(s.spec.ports) ? s.spec.ports : []) as Array<{ internal_port: number; publicly_accessible: boolean; is_default?: boolean }>;
    const link = publicLinks(deps.ingress, { slug: s.slug, environmentId: s.environment_id, ports }).find((l) => l.is_default) ?? null;
    const dbPort = s.type === 'DATABASE' && typeof s.spec.port === 'number' ? [s.spec.port] : [];
    return [{ id: s.id, name: s.name, type: s.type, host: s.slug, ports: ports.length ? ports.map((p) => p.internal_port) : dbPort, public_url: link?.url ?? null, status: s.state }];
  });
}

function modelOf(deps: AgentRunDeps, type: string, apiKey: string | null, provider: ProviderRow | null, baseUrl: string | null, modelId: string | null): AgentModel | string {
  const credential = apiKey ?? (provider?.credential_sealed ? deps.sealer.open(provider.credential_sealed) : null);
  if (!credential && deps.requireCredential) return 'The workflow has no model credential: set model.api_key, or model.llm_provider_id to a provider with a credential';
  if (type === 'BEDROCK') {
    const region = provider?.region?.trim() || null;
    if (!region && deps.requireCredential) return 'A BEDROCK model needs an LLM provider with a region (model.llm_provider_id)';
    const parts = (credential ?? '').split(':');
    const env: Record<string, string> = parts.length >= 2
      ? { AWS_ACCESS_KEY_ID: parts[0]!, AWS_SECRET_ACCESS_KEY: parts[1]!, ...(parts[2] ? { AWS_SESSION_TOKEN: parts.slice(2).join(':') } : {}) }
      : credential ? { AWS_BEARER_TOKEN_BEDROCK: credential } : {};
    return { kind: 'bedrock', modelId, baseUrl, env, region };
  }
  return { kind: 'anthropic', modelId, baseUrl, env: credential ? { ANTHROPIC_API_KEY: credential } : {}, region: null };
}

/** the run of a workflow deployment and everything its agent needs; null when the deployment is no run's */
export async function prepareAgentRun(deps: AgentRunDeps, deploymentId: string, serviceId: string): Promise<PreparedRun | null> {
  const { db, sealer } = deps;
  const run = await runFactsByDeployment(db, deploymentId);
  if (!run) return null;
  const row = await workflowsRepo.findWorkflow(db, serviceId);
  if (!row) return { runId: run.id, problem: 'The workflow is gone' };
  const spec = { ...defaultSpec(), ...row.spec };
  const problem = (p: string): PreparedRun => ({ runId: run.id, problem: p });

  const missing = await workflowsRepo.missingConnectors(db, [run.workflow_id, serviceId]);
  if (missing.length) return problem(`A required MCP connector is gone: ${missing.join(', ')} (attach another or save the workflow's connectors again)`);

  const settings = parseModelSettings(spec.model.settings);
  if (!settings.ok) return problem(`model.settings: ${settings.problems.join('; ')}`);
  const provider = row.llm_provider_id ? await deps.llmProviders.find(db, row.llm_provider_id) : null;
  if (row.llm_provider_id && !provider) return problem('The workflow\'s LLM provider is gone (model.llm_provider_id)');
  const apiKey = row.secrets.api_key ? sealer.open(row.secrets.api_key) : null;
  const model = modelOf(deps, spec.model.type, apiKey, provider, effectiveBaseUrl(settings.value, provider), settings.value.model);
  if (typeof model === 'string') return problem(model);

  const raw = parseMcpConfig(spec.mcp);
  if (!raw.ok) return problem(`mcp: ${raw.problems.join('; ')}`);
  const mcpServers: Record<string, McpServerEntry> = { ...raw.servers };
  const mcpEnv: Record<string, string> = {};
  const secrets = [...Object.values(model.env)];
  for (const entry of Object.values(raw.servers)) {
    if ('env' in entry) secrets.push(...Object.values(entry.env ?? {}));
    if ('headers' in entry) secrets.push(...Object.values(entry.headers ?? {}));
  }
  const attached = (await workflowsRepo.attachedMcpServers(db, [serviceId])).get(serviceId) ?? [];
  const connectors = await deps.mcpServers.findMany(db, attached.map((a) => a.id));
  const sealedHeaders = await deps.mcpServers.sealedHeaders(db, connectors.map((c) => c.id));
  for (const [i, ref] of attached.entries()) {
    const c = connectors.find((x) => x.id === ref.id);
    if (!c) continue;
    const sealed = sealedHeaders.get(c.id);
    const values = sealed ? JSON.parse(sealer.open(sealed)) as Record<string, string> : {};
    const headers: Record<string, string> = {};
    Object.entries(values).forEach(([name, value], j) => {
      const variable = `BERTH_MCP_${i}_HEADER_${j}`;
      headers[name] = `\${${variable}}`;
      mcpEnv[variable] = value;
      secrets.push(value);
    });
    let key = c.name.replace(/[^A-Za-z0-9_-]+/g, '-').slice(0, 64) || `connector-${i}`;
    while (mcpServers[key]) key = `${key.slice(0, 60)}-${i}`;
    mcpServers[key] = { type: 'http', url: c.url, headers };
  }

  // a run per pull request works on the pull request: its repository checked out at the head commit
  const pr = pullRequestOf(run);
  const prKey = pr ? repositoryKey(pr.repository_url) : null;
  const sameAsPr = (url: string) => prKey !== null && repositoryKey(url) === prKey;
  const wanted = [...spec.project_repositories.map((r) => ({ ...r, commit: null as string | null }))];
  if (pr) {
    const at = wanted.findIndex((r) => sameAsPr(r.url));
    const head = { url: pr.repository_url, branch: pr.head_branch, commit: pr.head_commit };
    if (at >= 0) wanted[at] = { ...wanted[at]!, ...head, git_token_id: wanted[at]!.git_token_id ?? await repositoryTokenId(db, row.environment_id, prKey!) };
    else wanted.push({ ...head, git_token_id: await repositoryTokenId(db, row.environment_id, prKey!) });
  }
  const dirs = repositoryDirs(wanted.map((r) => r.url));
  const repositories: AgentRepository[] = [];
  for (const [i, r] of wanted.entries()) {
    // a private repository's token: for the clone on the host only, never in the run container
    const credential = r.git_token_id ? await gitCredential(db, sealer, row.organization_id, r.git_token_id).catch((err: Error) => err) : null;
    if (credential instanceof Error) return problem(`${i < spec.project_repositories.length ? `project_repositories[${i}]` : 'the pull request\'s repository'}.git_token_id: ${credential.message}`);
    if (credential) secrets.push(credential.token);
    repositories.push({ dir: dirs[i]!, url: r.url, branch: r.branch, commit: r.commit, token: credential?.token ?? null, username: credential?.username ?? null });
  }
  const services = await contextServices(deps, spec.context_service_ids, row.environment_id);
  const envRow = (await deps.services.rowsById(db, [serviceId]))[0]!;
  const notes: string[] = [];
  let berthMcpUrl: string | null = null;
  const access = platformAccessOf(spec);
  if (access !== 'NONE' && !deps.berthUrl) {
    notes.push('berth\'s own MCP server is not offered to this run: berth listens on loopback only and AGENT_BERTH_URL is unset');
  } else if (access !== 'NONE') {
    // the workflow and its context services, in the environment the run runs in (the copy's, in a clone)
    const token = await deps.runCredentials.mint(db, {
      organizationId: row.organization_id, runId: run.id, workflowId: serviceId, environmentId: row.environment_id,
      serviceIds: [serviceId, ...services.map((s) => s.id)], mayAct: access === 'ACT',
      expiresAt: new Date(Date.now() + (settings.value.timeout_seconds + CREDENTIAL_MARGIN_SECONDS) * 1000),
    });
    let key = 'berth';
    while (mcpServers[key]) key = `${key}-platform`;
    berthMcpUrl = `${deps.berthUrl}/mcp`;
    mcpServers[key] = { type: 'http', url: berthMcpUrl, headers: { Authorization: `Token \${${BERTH_TOKEN_VARIABLE}}` } };
    mcpEnv[BERTH_TOKEN_VARIABLE] = token;
    secrets.push(token);
    notes.push(`berth's MCP server is offered to the agent as "${key}" (${access === 'ACT' ? 'reading and acting' : 'reading'} tools, this environment, the workflow and ${services.length} context service(s))`);
  }
  const prompt = composePrompt({
    agentPrompt: spec.agent_prompt, trigger: run.trigger, triggeredBy: run.triggered_by, payload: run.payload,
    scheduledFor: run.scheduled_for ? new Date(run.scheduled_for).toISOString() : null, outputs: spec.outputs, services, repositories,
    cloneEnvironment: run.clone_environment_id !== null,
  });
  return {
    runId: run.id,
    notes,
    spec: {
      runId: run.id, workflowId: serviceId, workflowSlug: row.slug, environmentId: row.environment_id, projectId: envRow.project_id,
      organizationId: row.organization_id, prompt, model, maxTurns: settings.value.max_turns, maxCostUsd: settings.value.max_cost_usd, timeoutSeconds: settings.value.timeout_seconds,
      mcpServers, mcpEnv, berthMcpUrl, repositories, context: { services }, hostAllowlist: [...spec.governance.host_allowlist, ...previewHosts(run)],
      resources: { cpuMilli: spec.resources.cpu_milli, ramMib: spec.resources.ram_mib }, dockerFragment: spec.docker_fragment, secrets,
    },
  };
}

/** what the harness reported, on the run (the status follows when the deployment settles) */
export async function recordAgentOutcome(db: Queryable, runId: string, o: AgentRunOutcome): Promise<void> {
  await recordRunOutcome(db, runId, o);
}
