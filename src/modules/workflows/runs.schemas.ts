// Shapes of workflow runs (berth's own: the public API has no run resource) and of the
// deploymentHistoryV2 items (the public DeploymentHistoryService's main members).
import { Type, type Static } from 'typebox';
import { Paginated, Timestamp, Uuid } from '../../http/schemas.ts';

const NullableTime = Type.Union([Timestamp, Type.Null()]);

export const WorkflowRun = Type.Object({
  id: Uuid,
  created_at: Timestamp,
  updated_at: NullableTime,
  agentic_workflow_id: Uuid,
  trigger: Type.String({ description: 'WEBHOOK, SCHEDULE, MANUAL (POST /agenticWorkflow/{id}/run) or PULL_REQUEST (berth extension: the workflow\'s pull_requests trigger)' }),
  status: Type.String({ description: 'QUEUED → RUNNING → SUCCEEDED / FAILED / CANCELED' }),
  payload: Type.Unknown({ description: 'the JSON body the webhook received (null for scheduled runs)' }),
  scheduled_for: Type.Union([Timestamp, Type.Null()], { description: 'the schedule occurrence of a SCHEDULE run' }),
  started_at: NullableTime,
  finished_at: NullableTime,
  deployment_id: Type.Union([Uuid, Type.Null()]),
  clone_environment_id: Type.Union([Uuid, Type.Null()]),
  message: Type.Union([Type.String(), Type.Null()], { description: 'why the run failed or was canceled (the model\'s, the builder\'s or the runner\'s words)' }),
  triggered_by: Type.Union([Type.String(), Type.Null()], { description: 'who started a MANUAL run' }),
  result: Type.Union([Type.String(), Type.Null()], { description: "the agent's final answer, as the harness reported it" }),
  num_turns: Type.Union([Type.Integer(), Type.Null()], { description: 'model turns the agent took' }),
  input_tokens: Type.Union([Type.Integer(), Type.Null()]),
  output_tokens: Type.Union([Type.Integer(), Type.Null()]),
  cost_usd: Type.Union([Type.Number(), Type.Null()], { description: 'cost in US dollars as the harness computed it from list prices' }),
  duration_ms: Type.Union([Type.Integer(), Type.Null()], { description: 'how long the agent ran (image build and clones included)' }),
  preview_id: Type.Union([Uuid, Type.Null()], { description: 'berth extension: the preview a PULL_REQUEST run ran against (its environment is clone_environment_id)' }),
  head_commit: Type.Union([Type.String(), Type.Null()], { description: 'berth extension: the pull request\'s head commit a PULL_REQUEST run tested' }),
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
