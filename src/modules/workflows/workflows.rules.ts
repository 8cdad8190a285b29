// Pure rules of agentic workflows (no I/O): the seed's defaults, how a request is merged over the
// stored spec (creation: defaults; edit: omitted members keep their value), validation of CIDRs,
// the `mcp` text (mcp-config.ts), `model.settings` (model-settings.ts) and the schedule, the
// attached-connector list, and the next firing.
import { AppError, badRequest, invalid, type Problem } from '../../lib/errors.ts';
import { parseCidr } from '../../lib/cidr.ts';
import { checkMinimumInterval, isValidTimeZone, nextOccurrence, parseCron } from '../../lib/cron.ts';
import { parseMcpConfig } from './mcp-config.ts';
import { parseModelSettings } from './model-settings.ts';
import { repositoryKey } from '../git-push/git-push.rules.ts';
import type { AgenticWorkflowRequest, PlatformAccess } from './workflows.schemas.ts';

const DEFAULT_RESOURCES = { cpu_milli: 1000, ram_mib: 1024, gpu: 0, storage_gib: 0 };
/** the model of a workflow created without one: CLAUDE, no settings, no credential */
const DEFAULT_MODEL = { type: 'CLAUDE', settings: '' };
const MIN_SCHEDULE_MINUTES = 5;

export interface OutputSpec { name: string; url: string | null; headers: Array<{ name: string; value: string }>; instructions: string }
export interface WorkflowSpec {
  description: string;
  webhook_ip_allowlist: string[];
  docker_fragment: string;
  enabled: boolean;
  mcp: string;
  context_service_ids: string[];
  outputs: OutputSpec[];
  model: { type: string; settings: string };
  project_repositories: Array<{ url: string; branch: string; git_token_id: string | null }>;
  agent_prompt: string;
  /** platform_access is absent from specs stored before it existed: read it with platformAccessOf */
  governance: { host_allowlist: string[]; platform_access?: PlatformAccess };
  resources: { cpu_milli: number; ram_mib: number; gpu: number; storage_gib: number };
  schedule: { cron_expression: string; timezone: string } | null;
  execution_mode: string;
  /** absent from specs stored before it existed: null */
  pull_requests?: PullRequestTriggerSpec | null;
}

interface PullRequestTriggerSpec { repository_url: string; base_branch: string | null }

export function defaultSpec(): WorkflowSpec {
  return {
    description: '', webhook_ip_allowlist: [], docker_fragment: '', enabled: true, mcp: '', context_service_ids: [],
    outputs: [], model: { ...DEFAULT_MODEL }, project_repositories: [], agent_prompt: '', governance: { host_allowlist: [], platform_access: 'READ' },
    resources: { ...DEFAULT_RESOURCES }, schedule: null, execution_mode: 'IN_PLACE', pull_requests: null,
  };
}

/** what the run's agent may do through berth's MCP server (READ when never set) */
export function platformAccessOf(spec: WorkflowSpec): PlatformAccess {
  return spec.governance.platform_access ?? 'READ';
}

/** the spec after a request: over the defaults (creation) or the stored spec (edit) */
export function mergeSpec(base: WorkflowSpec, body: AgenticWorkflowRequest): WorkflowSpec {
  const s: WorkflowSpec = { ...base };
  if (body.description !== undefined) s.description = body.description;
  if (body.webhook_ip_allowlist !== undefined) s.webhook_ip_allowlist = body.webhook_ip_allowlist.map((c) => c.trim());
  if (body.docker_fragment !== undefined) s.docker_fragment = body.docker_fragment;
  if (body.enabled !== undefined) s.enabled = body.enabled;
  if (body.mcp !== undefined) s.mcp = body.mcp;
  if (body.context_service_ids !== undefined) s.context_service_ids = [...new Set(body.context_service_ids.map((i) => i.toLowerCase()))];
  if (body.outputs !== undefined) {
    s.outputs = body.outputs.map((o) => ({ name: o.name, url: o.url ?? null, headers: o.headers ?? [], instructions: o.instructions ?? '' }));
  }
  if (body.model) s.model = { type: body.model.type, settings: body.model.settings ?? base.model.settings };
  if (body.project_repositories !== undefined) {
    s.project_repositories = body.project_repositories.map((r) => ({ url: r.url, branch: r.branch, git_token_id: r.git_token_id?.toLowerCase() ?? null }));
  }
  if (body.agent_prompt !== undefined) s.agent_prompt = body.agent_prompt;
  if (body.governance) {
    s.governance = { host_allowlist: body.governance.host_allowlist, platform_access: body.governance.platform_access ?? platformAccessOf(base) };
  }
  if (body.resources) s.resources = { ...body.resources };
  if (body.schedule !== undefined) s.schedule = body.schedule === null ? null : { cron_expression: body.schedule.cron_expression.trim(), timezone: body.schedule.timezone };
  if (body.execution_mode !== undefined) s.execution_mode = body.execution_mode;
  if (body.pull_requests !== undefined) {
    s.pull_requests = body.pull_requests === null ? null : { repository_url: body.pull_requests.repository_url.trim(), base_branch: body.pull_requests.base_branch?.trim() || null };
  }
  return s;
}

/**
 * 400 for what the schema cannot say: CIDRs, output names, the `mcp` text (the harness's
 * mcpServers shape), the `model.settings` members and the schedule. Every problem is listed
 * (validation_error with `errors`).
 */
export function validateSpec(s: WorkflowSpec, now: Date = new Date()): void {
  const problems: Problem[] = [];
  for (const [i, cidr] of s.webhook_ip_allowlist.entries()) {
    const parsed = parseCidr(cidr);
    if (!parsed.ok) problems.push({ field: `webhook_ip_allowlist.${i}`, message: `webhook_ip_allowlist[${i}] '${cidr}' is not a CIDR range: ${parsed.reason}` });
  }
  const names = new Set<string>();
  for (const [i, o] of s.outputs.entries()) {
    if (names.has(o.name.toLowerCase())) problems.push({ field: `outputs.${i}.name`, message: `outputs: the name '${o.name}' is used twice` });
    names.add(o.name.toLowerCase());
  }
  const mcp = parseMcpConfig(s.mcp);
  if (!mcp.ok) problems.push(...inText('mcp', mcp.problems));
  const settings = parseModelSettings(s.model.settings);
  if (!settings.ok) problems.push(...inText('model.settings', settings.problems));
  if (s.schedule) {
    try {
      validateSchedule(s.schedule, now);
    } catch (err) {
      if (!(err instanceof AppError) || err.status !== 400) throw err;
      problems.push({ field: 'schedule', message: err.message });
    }
  }
  if (s.pull_requests && !isProviderRepository(s.pull_requests.repository_url)) {
    problems.push({ field: 'pull_requests.repository_url', message: `pull_requests.repository_url '${s.pull_requests.repository_url}' is not a git repository URL berth can compare (https://host/owner/name, ssh://… or git@host:owner/name)` });
  }
  if (problems.length > 0) throw invalid(problems);
}

/** a repository a git provider hosts (host/owner/name…), as pull requests come from: not a local path */
function isProviderRepository(url: string): boolean {
  const key = repositoryKey(url);
  return key !== null && !key.startsWith('local:') && key.split('/').filter(Boolean).length >= 3;
}

/** problems inside a JSON text member: `$.max_turns must…` becomes `model.settings.max_turns must…` */
function inText(field: string, problems: readonly string[]): Problem[] {
  return problems.map((p) => ({ field, message: p.startsWith('$') ? `${field}${p.slice(1)}` : `${field}: ${p}` }));
}

function validateSchedule(schedule: { cron_expression: string; timezone: string }, now: Date = new Date()): void {
  if (!isValidTimeZone(schedule.timezone)) {
    throw badRequest(`schedule.timezone '${schedule.timezone}' is not an IANA time zone name (e.g. Europe/Paris, Etc/UTC)`);
  }
  const parsed = parseCron(schedule.cron_expression);
  if (!parsed.ok) throw badRequest(`schedule.cron_expression is invalid: ${parsed.reason}`);
  if (nextOccurrence(parsed.schedule, schedule.timezone, now) === null) {
    throw badRequest(`schedule.cron_expression '${schedule.cron_expression}' never fires (e.g. a day that does not exist)`);
  }
  const tooOften = checkMinimumInterval(parsed.schedule, schedule.timezone, MIN_SCHEDULE_MINUTES, { from: now });
  if (tooOften) throw badRequest(`schedule.cron_expression is rejected: ${tooOften}`);
}

/** next firing strictly after `after`, or null when webhook-only, disabled or never firing */
export function nextRunAt(s: WorkflowSpec, after: Date): Date | null {
  if (!s.enabled || !s.schedule) return null;
  const parsed = parseCron(s.schedule.cron_expression);
  if (!parsed.ok) return null;
  return nextOccurrence(parsed.schedule, s.schedule.timezone, after);
}

export interface McpRef { id: string; required: boolean }

/**
 * The attached connectors a request asks for, or undefined when it sends neither list.
 * mcp_servers and the deprecated mcp_server_ids are merged (union, first mention's order);
 * an id given twice is required when any mention says so.
 */
export function requestedMcpServers(body: Pick<AgenticWorkflowRequest, 'mcp_servers' | 'mcp_server_ids'>): McpRef[] | undefined {
  if (body.mcp_servers === undefined && body.mcp_server_ids === undefined) return undefined;
  const byId = new Map<string, McpRef>();
  const add = (id: string, required: boolean) => {
    const key = id.toLowerCase();
    const seen = byId.get(key);
    if (seen) seen.required ||= required;
    else byId.set(key, { id: key, required });
  };
  for (const m of body.mcp_servers ?? []) add(m.id, m.required ?? false);
  for (const id of body.mcp_server_ids ?? []) add(id, false);
  return [...byId.values()];
}

export interface ConnectorFacts { id: string; name: string; organizationId: string; scope: string; ownerUserId: string | null }

/**
 * 400 unless every attached connector exists in the organization, is shared or the caller's own,
 * and no two share a name (case-insensitively).
 */
export function checkConnectors(refs: readonly McpRef[], found: readonly ConnectorFacts[], orgId: string, callerUserId: string | null): void {
  const byId = new Map(found.map((f) => [f.id, f]));
  const names = new Map<string, string>();
  for (const ref of refs) {
    const c = byId.get(ref.id);
    const label = ref.required ? `required MCP server ${ref.id}` : `MCP server ${ref.id}`;
    if (!c || c.organizationId !== orgId) throw badRequest(`${label} does not exist in this organization`);
    if (c.scope === 'USER' && (callerUserId === null || c.ownerUserId !== callerUserId)) {
      throw badRequest(`MCP server '${c.name}' is personal to another member: only its owner can attach it or keep it attached`);
    }
    const key = c.name.toLowerCase();
    const other = names.get(key);
    if (other) throw badRequest(`MCP servers ${other} and ${c.id} share the name '${c.name}'; attach only one of them`);
    names.set(key, c.id);
  }
}
