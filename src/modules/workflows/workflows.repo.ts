// SQL for agentic workflows: their row in `services` (type AGENTIC_WORKFLOW, members in spec,
// sealed api_key and webhook secret in secrets), their `agentic_workflows` row (next_run_at,
// llm_provider_id) and their attached MCP connectors.
import type { Queryable } from '../../db/db.ts';
import type { McpRef, WorkflowSpec } from './workflows.rules.ts';
import { AuditedInsert, type CreationEvent } from '../audit/audit.creation.ts';

// its rows' name clash (services_environment_name_key) is the services module's constraint: its
// message is declared there (services.repo.ts: SERVICE_CONSTRAINTS)

export interface WorkflowSecrets { api_key?: string; webhook_secret?: string }

export interface WorkflowRow {
  id: string; organization_id: string; environment_id: string; name: string; slug: string; spec: WorkflowSpec;
  secrets: WorkflowSecrets; next_run_at: Date | null; llm_provider_id: string | null; created_at: Date; updated_at: Date | null;
}

const SELECT = `select s.id, s.organization_id, s.environment_id, s.name, s.slug, s.spec, s.secrets, w.next_run_at,
  w.llm_provider_id, s.created_at, s.updated_at
  from services s join agentic_workflows w on w.service_id = s.id`;

export async function findWorkflow(db: Queryable, id: string, forUpdate = false): Promise<WorkflowRow | null> {
  const rows = await db.query<WorkflowRow>(`${SELECT} where s.id = $1${forUpdate ? ' for update of s, w' : ''}`, [id]);
  return rows[0] ?? null;
}

export async function listWorkflows(db: Queryable, environmentId: string, limit: number | null, offset: number, name: string | null = null): Promise<{ rows: WorkflowRow[]; total: number }> {
  const byName = 'and ($2::text is null or lower(s.name) = lower($2))';
  const rows = await db.query<WorkflowRow>(`${SELECT} where s.environment_id = $1 ${byName} order by s.created_at, s.id limit $3 offset $4`, [environmentId, name, limit, offset]);
  const count = await db.query<{ n: number }>(`select count(*)::int as n from agentic_workflows w join services s on s.id = w.service_id where s.environment_id = $1 ${byName}`, [environmentId, name]);
  return { rows, total: count[0]!.n };
}

export interface WorkflowValues {
  name: string; slug: string; spec: WorkflowSpec; secrets: WorkflowSecrets; nextRunAt: Date | null; llmProviderId: string | null;
}

/** one statement: the service row, its workflow row and its MCP attachments (in the order sent),
 * with the stored row back (a create needs no transaction and no re-read); given the request's
 * creation event, the event too */
const INSERT_WORKFLOW = new AuditedInsert(11, (logged) => `with s as (
       insert into services (organization_id, project_id, environment_id, type, name, slug, spec, secrets)
       values ($1, $2, $3, 'AGENTIC_WORKFLOW', $4, $5, $6::jsonb, $7::jsonb)
       returning id, organization_id, environment_id, name, slug, spec, secrets, created_at, updated_at),
     w as (
       insert into agentic_workflows (service_id, organization_id, next_run_at, llm_provider_id)
       select s.id, s.organization_id, $8, $9 from s returning next_run_at, llm_provider_id),
     m as (
       insert into agentic_workflow_mcp_servers (service_id, mcp_server_id, required, position)
       select s.id, r.id, r.required, r.position - 1
         from s, unnest($10::uuid[], $11::boolean[]) with ordinality as r (id, required, position))${logged ? `,
     logged as (${logged('s')})` : ''}
     select s.id, s.organization_id, s.environment_id, s.name, s.slug, s.spec, s.secrets, w.next_run_at, w.llm_provider_id,
       s.created_at, s.updated_at from s, w`);

export async function insertWorkflow(db: Queryable, scope: { organizationId: string; projectId: string; environmentId: string }, v: WorkflowValues,
  refs: readonly McpRef[], creation?: CreationEvent): Promise<WorkflowRow> {
  const rows = await INSERT_WORKFLOW.query<WorkflowRow>(db, [scope.organizationId, scope.projectId, scope.environmentId, v.name, v.slug,
    JSON.stringify(v.spec), JSON.stringify(v.secrets), v.nextRunAt, v.llmProviderId, refs.map((r) => r.id), refs.map((r) => r.required)], creation);
  return rows[0]!;
}

export async function updateWorkflow(db: Queryable, id: string, v: WorkflowValues): Promise<void> {
  await db.query(`update services set name = $2, slug = $3, spec = $4::jsonb, secrets = $5::jsonb, updated_at = now(),
    deployment_status = case when deployment_status = 'UP_TO_DATE' then 'OUT_OF_DATE' else deployment_status end where id = $1`,
  [id, v.name, v.slug, JSON.stringify(v.spec), JSON.stringify(v.secrets)]);
  await db.query('update agentic_workflows set next_run_at = $2, llm_provider_id = $3 where service_id = $1', [id, v.nextRunAt, v.llmProviderId]);
}

export async function deleteWorkflow(db: Queryable, id: string): Promise<void> {
  await db.query(`delete from services where id = $1 and type = 'AGENTIC_WORKFLOW'`, [id]);
}

interface AttachedRow { service_id: string; mcp_server_id: string; required: boolean }

export async function attachedMcpServers(db: Queryable, serviceIds: readonly string[]): Promise<Map<string, McpRef[]>> {
  const out = new Map<string, McpRef[]>();
  if (serviceIds.length === 0) return out;
  const rows = await db.query<AttachedRow>(
    'select service_id, mcp_server_id, required from agentic_workflow_mcp_servers where service_id = any($1::uuid[]) order by service_id, position',
    [serviceIds]);
  for (const r of rows) {
    const list = out.get(r.service_id) ?? [];
    list.push({ id: r.mcp_server_id, required: r.required });
    out.set(r.service_id, list);
  }
  return out;
}

export async function replaceAttachedMcpServers(db: Queryable, serviceId: string, refs: readonly McpRef[]): Promise<void> {
  await db.query('delete from agentic_workflow_mcp_servers where service_id = $1', [serviceId]);
  for (const [i, ref] of refs.entries()) {
    await db.query('insert into agentic_workflow_mcp_servers (service_id, mcp_server_id, required, position) values ($1, $2, $3, $4)',
      [serviceId, ref.id, ref.required, i]);
  }
  // the attachments were saved again: a required connector deleted before no longer blocks runs
  await db.query('delete from agentic_workflow_missing_connectors where service_id = $1', [serviceId]);
}

/** which of `ids` are services of this environment */
export async function servicesOfEnvironment(db: Queryable, environmentId: string, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db.query<{ id: string }>('select id from services where environment_id = $1 and id = any($2::uuid[])', [environmentId, ids]);
  return new Set(rows.map((r) => r.id));
}

/** how many workflows use the LLM provider */
export async function countWorkflowsUsingProvider(db: Queryable, providerId: string): Promise<number> {
  return (await db.query<{ n: number }>('select count(*)::int as n from agentic_workflows where llm_provider_id = $1', [providerId]))[0]!.n;
}

/** the names of the required connectors gone from these workflows (a run cannot start without them) */
export async function missingConnectors(db: Queryable, serviceIds: readonly string[]): Promise<string[]> {
  const rows = await db.query<{ name: string }>('select name from agentic_workflow_missing_connectors where service_id = any($1::uuid[]) order by name',
    [serviceIds]);
  return rows.map((r) => r.name);
}
