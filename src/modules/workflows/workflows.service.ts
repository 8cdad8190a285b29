// Agentic workflows: services of type AGENTIC_WORKFLOW in an environment. Creation applies the
// seed's defaults, edits keep omitted members; every save re-validates the whole configuration
// (CIDRs, the mcp shape, model.settings, schedule, model credential, attached connectors, context
// services, the repositories' git tokens) before anything is stored, and recomputes next_run_at. The model api_key and the
// webhook secret are sealed in services.secrets.
import type { Db, Queryable } from '../../db/db.ts';
import { badRequest, notFound } from '../../lib/errors.ts';
import { randomSecret, type Sealer } from '../../lib/crypto.ts';
import { slugify, iso, isoRequired } from '../../lib/text.ts';
import { page, type PageInfo, type PageRequest } from '../../http/pagination.ts';
import type { Principal } from '../access/principal.ts';
import type { CreationEvent } from '../audit/audit.creation.ts';
import type { ScopeService } from '../scope/scope.service.ts';
import { requireGitTokens } from '../git-tokens/git-credentials.ts';
import type { LlmProvidersService } from '../llm-providers/llm-providers.service.ts';
import type { McpServersService } from '../mcp-servers/mcp-servers.service.ts';
import * as repo from './workflows.repo.ts';
import { checkConnectors, defaultSpec, mergeSpec, nextRunAt, platformAccessOf, requestedMcpServers, validateSpec, type McpRef, type WorkflowSpec } from './workflows.rules.ts';
import type { AgenticWorkflow, AgenticWorkflowRequest } from './workflows.schemas.ts';

export const WORKFLOW_TYPE = 'AGENTIC_WORKFLOW';
export const WORKFLOW_LABEL = 'Agentic workflow';

export interface WorkflowsService {
  list(p: Principal, environmentId: string, req: PageRequest): Promise<{ results: AgenticWorkflow[]; pagination: PageInfo }>;
  /** `creation`: the request's audit event, written by the creating statement */
  create(p: Principal, environmentId: string, body: AgenticWorkflowRequest, creation?: CreationEvent): Promise<AgenticWorkflow>;
  get(p: Principal, id: string): Promise<AgenticWorkflow>;
  update(p: Principal, id: string, body: AgenticWorkflowRequest): Promise<AgenticWorkflow>;
  remove(p: Principal, id: string): Promise<void>;
  /** the webhook secret of a workflow (plain), for the public hook route */
  webhookSecret(row: repo.WorkflowRow): string | null;
  /** how many workflows use the LLM provider (its type cannot change under them); no caller */
  countUsingProvider(db: Queryable, providerId: string): Promise<number>;
}

export function createWorkflowsService(deps: {
  db: Db; sealer: Sealer; publicUrl: string; scope: ScopeService; llmProviders: LlmProvidersService; mcpServers: McpServersService;
}): WorkflowsService {
  const { db, sealer, publicUrl, scope, llmProviders, mcpServers } = deps;

  function webhookSecret(row: repo.WorkflowRow): string | null {
    return row.secrets.webhook_secret ? sealer.open(row.secrets.webhook_secret) : null;
  }

  function toResponse(row: repo.WorkflowRow, attached: McpRef[]): AgenticWorkflow {
    const s = { ...defaultSpec(), ...row.spec };
    return {
      id: row.id, created_at: isoRequired(row.created_at), updated_at: iso(row.updated_at), service_type: 'AGENTIC_WORKFLOW',
      environment: { id: row.environment_id }, name: row.name, slug: row.slug, description: s.description,
      webhook_ip_allowlist: s.webhook_ip_allowlist, docker_fragment: s.docker_fragment, enabled: s.enabled, mcp: s.mcp,
      mcp_server_ids: attached.map((a) => a.id), mcp_servers: attached.map((a) => ({ id: a.id, required: a.required })),
      context_service_ids: s.context_service_ids, outputs: s.outputs,
      model: { type: s.model.type, settings: s.model.settings, llm_provider_id: row.llm_provider_id },
      project_repositories: s.project_repositories, agent_prompt: s.agent_prompt, governance: { host_allowlist: s.governance.host_allowlist, platform_access: platformAccessOf(s) }, resources: s.resources,
      webhook: { url: `${publicUrl}/agenticWorkflow/${row.id}/hook/${webhookSecret(row) ?? ''}` },
      schedule: s.schedule ? { ...s.schedule, next_run_at: iso(row.next_run_at) } : null,
      execution_mode: s.execution_mode,
      pull_requests: s.pull_requests ?? null,
    };
  }

  async function load(q: Queryable, id: string): Promise<AgenticWorkflow> {
    const row = (await repo.findWorkflow(q, id))!;
    return toResponse(row, (await repo.attachedMcpServers(q, [id])).get(id) ?? []);
  }

  /** the credential after the request: a sealed api_key, a provider, or neither */
  async function resolveModel(p: Principal, orgId: string, spec: WorkflowSpec, body: AgenticWorkflowRequest, before: repo.WorkflowRow | null) {
    let providerId = before?.llm_provider_id ?? null;
    let apiKey = before?.secrets.api_key;
    let providerChosen = false;
    const m = body.model;
    if (m) {
      const key = m.api_key ?? '';
      if (key !== '' && m.llm_provider_id) throw badRequest('model: api_key and llm_provider_id are mutually exclusive; send one of them');
      if (key !== '') {
        apiKey = sealer.seal(key);
        providerId = null;
      } else if (m.llm_provider_id !== undefined) {
        providerId = m.llm_provider_id?.toLowerCase() ?? null;
        providerChosen = providerId !== null;
        if (providerId !== null) apiKey = undefined;
      }
    }
    if (providerId !== null) {
      const provider = await llmProviders.find(db, providerId);
      if (!provider) throw badRequest(`model.llm_provider_id: LLM provider ${providerId} does not exist`);
      if (provider.organization_id !== orgId) throw badRequest('model.llm_provider_id: the LLM provider belongs to another organization');
      if (providerChosen && provider.scope === 'USER' && (p.kind !== 'user' || provider.owner_user_id !== p.id)) {
        throw badRequest(`model.llm_provider_id: LLM provider '${provider.name}' is personal to another member; you may not use it`);
      }
      if (provider.type !== spec.model.type) {
        throw badRequest(`model.llm_provider_id: LLM provider '${provider.name}' is of type ${provider.type}, not ${spec.model.type}`);
      }
    }
    return { providerId, apiKey };
  }

  async function checkContext(environmentId: string, ids: readonly string[], selfId: string | null): Promise<void> {
    const found = await repo.servicesOfEnvironment(db, environmentId, ids);
    for (const id of ids) {
      if (id === selfId) throw badRequest('context_service_ids: a workflow cannot be its own context');
      if (!found.has(id)) throw badRequest(`context_service_ids: ${id} is not a service of this environment`);
    }
  }

  /** every repository's git_token_id names a git token of the organization (400 naming the entry) */
  function checkGitTokens(orgId: string, spec: WorkflowSpec): Promise<void> {
    return requireGitTokens(db, orgId, spec.project_repositories.map((r, i) => ({ id: r.git_token_id, field: `project_repositories[${i}].git_token_id` })));
  }

  async function checkMcp(p: Principal, orgId: string, refs: McpRef[]): Promise<void> {
    const found = await mcpServers.findMany(db, refs.map((r) => r.id));
    checkConnectors(refs, found.map((f) => ({ id: f.id, name: f.name, organizationId: f.organization_id, scope: f.scope, ownerUserId: f.owner_user_id })),
      orgId, p.kind === 'user' ? p.id : null);
  }

  return {
    webhookSecret,
    async list(p, environmentId, req) {
      await scope.environment(p, environmentId, 'read');
      const { rows, total } = await repo.listWorkflows(db, environmentId, req.limit, req.offset, req.name ?? null);
      const attached = await repo.attachedMcpServers(db, rows.map((r) => r.id));
      return page(req, rows.map((r) => toResponse(r, attached.get(r.id) ?? [])), total);
    },
    async create(p, environmentId, body, creation) {
      const env = await scope.environment(p, environmentId, 'write');
      const now = new Date();
      const spec = mergeSpec(defaultSpec(), body);
      validateSpec(spec, now);
      const model = await resolveModel(p, env.organizationId, spec, body, null);
      const refs = requestedMcpServers(body) ?? [];
      await checkMcp(p, env.organizationId, refs);
      await checkContext(environmentId, spec.context_service_ids, null);
      await checkGitTokens(env.organizationId, spec);
      const name = body.name.trim();
      const secrets: repo.WorkflowSecrets = { webhook_secret: sealer.seal(randomSecret(24)) };
      if (model.apiKey) secrets.api_key = model.apiKey;
      const row = await repo.insertWorkflow(db, env, {
        name, slug: slugify(name), spec, secrets, nextRunAt: nextRunAt(spec, now), llmProviderId: model.providerId,
      }, refs, creation);
      return toResponse(row, [...refs]);
    },
    async get(p, id) {
      await scope.service(p, id, 'read', WORKFLOW_TYPE, WORKFLOW_LABEL);
      return load(db, id);
    },
    async update(p, id, body) {
      const svc = await scope.service(p, id, 'write', WORKFLOW_TYPE, WORKFLOW_LABEL);
      const before = await repo.findWorkflow(db, id);
      if (!before) throw notFound(WORKFLOW_LABEL);
      const now = new Date();
      const base = { ...defaultSpec(), ...before.spec };
      const spec = mergeSpec(base, body);
      validateSpec(spec, now);
      const model = await resolveModel(p, svc.organizationId, spec, body, before);
      const refs = requestedMcpServers(body) ?? (await repo.attachedMcpServers(db, [id])).get(id) ?? [];
      // a personal connector stays attached on a save only when its owner saves
      await checkMcp(p, svc.organizationId, refs);
      await checkContext(svc.environmentId, spec.context_service_ids, id);
      await checkGitTokens(svc.organizationId, spec);
      const sameTiming = spec.enabled === base.enabled && JSON.stringify(spec.schedule) === JSON.stringify(base.schedule);
      const next = sameTiming && before.next_run_at ? before.next_run_at : nextRunAt(spec, now);
      const secrets: repo.WorkflowSecrets = { ...before.secrets };
      if (model.apiKey) secrets.api_key = model.apiKey;
      else delete secrets.api_key;
      const name = body.name.trim();
      return db.transaction(async (tx) => {
        await repo.updateWorkflow(tx, id, {
          name, slug: name === before.name ? before.slug : slugify(name), spec, secrets, nextRunAt: next, llmProviderId: model.providerId,
        });
        if (requestedMcpServers(body) !== undefined) await repo.replaceAttachedMcpServers(tx, id, refs);
        return load(tx, id);
      });
    },
    async remove(p, id) {
      await scope.service(p, id, 'write', WORKFLOW_TYPE, WORKFLOW_LABEL);
      await repo.deleteWorkflow(db, id);
    },
    countUsingProvider: (tx, providerId) => repo.countWorkflowsUsingProvider(tx, providerId),
  };
}
