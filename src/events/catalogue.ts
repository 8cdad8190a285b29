// The catalogue of event kinds organization webhooks can subscribe to: the single source of
// their names, meanings and payload schemas. Public-client spellings (DEPLOYMENT_SUCCESSFUL,
// DEPLOYMENT_FAILURE) are accepted on input as aliases of the same kinds. New kinds (e.g. the
// workflow runs') are one entry in EVENT_KINDS.
import { Type, type TSchema } from 'typebox';

const Id = Type.String({ format: 'uuid' });

/** payload of every DEPLOYMENT_* event; the service id is also given under its type's name
 * (application_id, container_id, database_id, job_id, …) */
const DeploymentEventPayload = Type.Object({
  deployment_id: Id,
  status: Type.String({ description: 'the deployment status at the time of the event' }),
  action: Type.String(),
  service_id: Id,
  service_type: Type.String(),
  service_name: Type.String(),
  environment_id: Id,
  project_id: Id,
  organization_id: Id,
  git_commit_id: Type.Union([Type.String(), Type.Null()]),
  image_tag: Type.Union([Type.String(), Type.Null()]),
  message: Type.Union([Type.String(), Type.Null()]),
}, { additionalProperties: true });

/** payload of every WORKFLOW_RUN_* event */
const WorkflowRunEventPayload = Type.Object({
  run_id: Id,
  agentic_workflow_id: Id,
  workflow_name: Type.String(),
  trigger: Type.String({ description: 'WEBHOOK, SCHEDULE or MANUAL' }),
  status: Type.String(),
  deployment_id: Type.Union([Id, Type.Null()]),
  environment_id: Id,
  organization_id: Id,
  message: Type.Union([Type.String(), Type.Null()]),
  result_summary: Type.Union([Type.String(), Type.Null()], { description: "the first 500 characters of the agent's final answer (finished runs)" }),
  num_turns: Type.Union([Type.Integer(), Type.Null()]),
  input_tokens: Type.Union([Type.Integer(), Type.Null()]),
  output_tokens: Type.Union([Type.Integer(), Type.Null()]),
  cost_usd: Type.Union([Type.Number(), Type.Null()], { description: 'as the agent harness reported it' }),
  duration_ms: Type.Union([Type.Integer(), Type.Null()]),
}, { additionalProperties: true });

/** payload of CUSTOM_DOMAIN_STATUS_CHANGED; the service id is also given under its type's name (application_id, container_id) */
const CustomDomainEventPayload = Type.Object({
  custom_domain_id: Id,
  domain: Type.String(),
  status: Type.String({ description: 'VALIDATION_PENDING, CERTIFICATE_PENDING, ACTIVE or FAILED' }),
  previous_status: Type.String(),
  message: Type.Union([Type.String(), Type.Null()], { description: 'what DNS answered and the record to create, or the CA\'s own words' }),
  certificate_expires_at: Type.Union([Type.String(), Type.Null()]),
  retry_at: Type.Union([Type.String(), Type.Null()]),
  service_id: Id,
  service_type: Type.String(),
  service_name: Type.String(),
  environment_id: Id,
  project_id: Id,
  organization_id: Id,
}, { additionalProperties: true });

/** payload of SERVICE_SCALED (decision 0338); the service id is also given under its type's name (application_id, container_id) */
const ServiceScaledEventPayload = Type.Object({
  service_id: Id,
  service_type: Type.String(),
  service_name: Type.String(),
  environment_id: Id,
  project_id: Id,
  organization_id: Id,
  deployment_id: Type.Union([Id, Type.Null()], { description: 'the deployment whose version runs (the replicas added or removed are of it)' }),
  direction: Type.String({ description: 'UP or DOWN' }),
  from_replicas: Type.Integer(),
  to_replicas: Type.Integer(),
  min_replicas: Type.Integer(),
  max_replicas: Type.Integer(),
  reason: Type.String({ description: 'METRICS, or MIN / MAX when the count was outside its bounds' }),
  metrics: Type.Array(Type.Object({
    name: Type.String({ description: 'CPU or memory' }),
    average_utilization_percent: Type.Number({ description: 'of the replicas\' limit, averaged over the window and the replicas' }),
    target_utilization_percent: Type.Integer(),
  })),
  window_seconds: Type.Integer(),
  message: Type.String({ description: 'the line written in the service\'s log' }),
}, { additionalProperties: true });

/** payload of every BACKUP_* event (issue 39, decision 0735) */
const BackupEventPayload = Type.Object({
  backup_id: Type.Union([Id, Type.Null()], { description: 'null for BACKUP_OVERDUE when no backup ever succeeded' }),
  backup_name: Type.Union([Type.String(), Type.Null()]),
  trigger: Type.Union([Type.String({ description: 'MANUAL, SCHEDULED or SAFETY' }), Type.Null()]),
  database_id: Id,
  database_name: Type.String(),
  environment_id: Id,
  project_id: Id,
  organization_id: Id,
  size: Type.Union([Type.Integer(), Type.Null()]),
  checksum: Type.Union([Type.String(), Type.Null()]),
  message: Type.Union([Type.String(), Type.Null()], { description: 'why it failed, or what the drill found' }),
  last_success_at: Type.Union([Type.String(), Type.Null()]),
}, { additionalProperties: true });

export interface EventKindEntry {
  readonly description: string;
  readonly payload: TSchema;
}

export const EVENT_KINDS = {
  DEPLOYMENT_STARTED: { description: 'a deployment started (left the queue)', payload: DeploymentEventPayload },
  DEPLOYMENT_SUCCEEDED: { description: 'a deployment succeeded (deployed, stopped, restarted or uninstalled)', payload: DeploymentEventPayload },
  DEPLOYMENT_FAILED: { description: 'a deployment failed (build or deployment error)', payload: DeploymentEventPayload },
  DEPLOYMENT_CANCELLED: { description: 'a deployment was cancelled', payload: DeploymentEventPayload },
  WORKFLOW_RUN_STARTED: { description: 'an agentic workflow run was started (webhook, schedule or by hand)', payload: WorkflowRunEventPayload },
  WORKFLOW_RUN_SUCCEEDED: { description: 'an agentic workflow run succeeded', payload: WorkflowRunEventPayload },
  WORKFLOW_RUN_FAILED: { description: 'an agentic workflow run failed', payload: WorkflowRunEventPayload },
  SERVICE_SCALED: { description: 'an autoscaled application or container gained or lost a replica (docker engine, decision 0338)', payload: ServiceScaledEventPayload },
  CUSTOM_DOMAIN_STATUS_CHANGED: { description: "a custom domain's lifecycle moved (waiting for DNS, ordering its certificate, active, failed: decision 0349)", payload: CustomDomainEventPayload },
  BACKUP_SUCCEEDED: { description: 'a database backup was stored, read back and its checksum matched', payload: BackupEventPayload },
  BACKUP_FAILED: { description: 'a database backup failed (nothing of it is kept)', payload: BackupEventPayload },
  BACKUP_DRILL_FAILED: { description: 'the restore drill could not restore the latest backup into a throwaway database', payload: BackupEventPayload },
  BACKUP_OVERDUE: { description: 'a database with a backup policy had no successful backup within 1.5 × its schedule', payload: BackupEventPayload },
} as const satisfies Record<string, EventKindEntry>;

export type EventKind = keyof typeof EVENT_KINDS;

/** spellings of the public clients accepted on input */
const EVENT_ALIASES: Readonly<Record<string, EventKind>> = {
  DEPLOYMENT_SUCCESSFUL: 'DEPLOYMENT_SUCCEEDED',
  DEPLOYMENT_FAILURE: 'DEPLOYMENT_FAILED',
  DEPLOYMENT_CANCELED: 'DEPLOYMENT_CANCELLED',
};

export const EVENT_KIND_NAMES = Object.keys(EVENT_KINDS) as EventKind[];

/** every spelling accepted on input (canonical kinds and aliases) */
export const ACCEPTED_EVENT_NAMES = [...EVENT_KIND_NAMES, ...Object.keys(EVENT_ALIASES)];

export function canonicalEventKind(name: string): EventKind | null {
  if (Object.hasOwn(EVENT_KINDS, name)) return name as EventKind;
  return Object.hasOwn(EVENT_ALIASES, name) ? EVENT_ALIASES[name]! : null;
}
