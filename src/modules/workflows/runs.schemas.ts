// Shapes of workflow runs (berth's own: the public API has no run resource) and of the
// deploymentHistoryV2 items (the public DeploymentHistoryService's main members).
import { Type, type Static } from 'typebox';
import { Paginated, Timestamp, Uuid } from '../../http/schemas.ts';

const NullableTime = Type.Union([Timestamp, Type.Null()]);

export const RUN_STATUSES = ['QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELED'] as const;

export const WorkflowRun = Type.Object({
  id: Uuid,
  created_at: Timestamp,
  updated_at: NullableTime,
  agentic_workflow_id: Uuid,
  trigger: Type.String({ description: 'WEBHOOK or SCHEDULE' }),
  status: Type.String({ description: 'QUEUED → RUNNING → SUCCEEDED / FAILED / CANCELED' }),
  payload: Type.Unknown({ description: 'the JSON body the webhook received (null for scheduled runs)' }),
  scheduled_for: Type.Union([Timestamp, Type.Null()], { description: 'the schedule occurrence of a SCHEDULE run' }),
  started_at: NullableTime,
  finished_at: NullableTime,
  deployment_id: Type.Union([Uuid, Type.Null()]),
  clone_environment_id: Type.Union([Uuid, Type.Null()]),
  message: Type.Union([Type.String(), Type.Null()]),
});
export type WorkflowRun = Static<typeof WorkflowRun>;
export const WorkflowRunList = Paginated(WorkflowRun);

export const WorkflowDeploymentHistoryItem = Type.Object({
  identifier: Type.Object({ name: Type.String(), service_id: Uuid, service_type: Type.String(), execution_id: Type.Union([Type.String(), Type.Null()]) }),
  status: Type.String(),
  auditing_data: Type.Object({ created_at: Timestamp, updated_at: NullableTime, triggered_by: Type.String(), origin: Type.String() }),
  run_id: Uuid,
});
export const WorkflowDeploymentHistory = Paginated(WorkflowDeploymentHistoryItem);

export const CancelRequest = Type.Object({ force_cancel: Type.Optional(Type.Boolean()) }, { additionalProperties: false });
