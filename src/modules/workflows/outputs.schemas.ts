// Shapes of agentic workflow output deliveries (berth's own: the public API has no such
// resource): the JSON body POSTed to an output's url when a run finishes, a delivery with its
// attempts (header names only, never their values), and the derived signing secret. Decision 0192.
import { Type, type Static } from 'typebox';
import { Paginated, Timestamp, Uuid } from '../../http/schemas.ts';
import { WebhookAttempt } from '../webhooks/webhooks.schemas.ts';

const NullableTime = Type.Union([Timestamp, Type.Null()]);
const NullableInt = Type.Union([Type.Integer(), Type.Null()]);

export const OutputMessage = Type.Object({
  type: Type.String({ description: 'always `agentic_workflow.run.finished`' }),
  timestamp: Type.String({ format: 'date-time', description: 'when the run finished and the delivery was made; the same on every attempt' }),
  data: Type.Object({
    run: Type.Object({
      id: Uuid,
      status: Type.String({ description: 'SUCCEEDED, FAILED or CANCELED' }),
      trigger: Type.String({ description: 'WEBHOOK, SCHEDULE or MANUAL' }),
      message: Type.Union([Type.String(), Type.Null()], { description: 'why the run ended so (an error, "timed out after N s", "Canceled on request"…)' }),
      result: Type.Union([Type.String(), Type.Null()], { description: "the agent's final result text (null when the run produced none)" }),
      num_turns: NullableInt,
      input_tokens: NullableInt,
      output_tokens: NullableInt,
      cost_usd: Type.Union([Type.Number(), Type.Null()], { description: 'as the agent harness reported it' }),
      duration_ms: NullableInt,
      created_at: Timestamp,
      started_at: NullableTime,
      finished_at: NullableTime,
    }),
    agentic_workflow: Type.Object({ id: Uuid, name: Type.String() }),
    output: Type.Object({ name: Type.String({ description: 'the output this delivery is for' }) }),
    environment_id: Uuid,
    organization_id: Uuid,
  }),
}, {
  title: 'AgenticWorkflowOutputMessage',
  description: 'The JSON body POSTed to each output url (with `content-type: application/json`) when a run ends SUCCEEDED, FAILED or '
    + 'CANCELED. Headers: the output\'s own `headers` (except webhook-id, webhook-timestamp, webhook-signature, content-type, '
    + 'content-length, user-agent, host, connection and transfer-encoding, which berth sets) and the Standard Webhooks '
    + '`webhook-id` (stable across retries and redeliveries), `webhook-timestamp` and `webhook-signature`, signed with the '
    + "workflow's output signing secret (GET /agenticWorkflow/{id}/outputSigningSecret). A 2xx answer acknowledges; anything "
    + 'else is retried with back-off for up to three days (Retry-After honoured), except 410 and refused targets.',
});
export type OutputMessage = Static<typeof OutputMessage>;

export const OutputDelivery = Type.Object({
  id: Uuid,
  created_at: Timestamp,
  updated_at: NullableTime,
  run_id: Uuid,
  agentic_workflow_id: Uuid,
  output_name: Type.String(),
  status: Type.String({ description: 'PENDING (an attempt is due), DELIVERED (a 2xx answer) or FAILED (no further attempt)' }),
  target_url: Type.String({ description: 'where the delivery is sent: the output url when the run finished (a redeliver takes the current one)' }),
  header_names: Type.Array(Type.String(), { description: "the names of the output's headers (those named like a header berth sets are not sent); their values are sealed and never returned" }),
  webhook_message_id: Type.String({ description: 'the webhook-id header, stable across retries and redeliveries' }),
  request: OutputMessage,
  attempts: Type.Integer({ description: 'attempts made so far' }),
  last_status_code: NullableInt,
  last_error: Type.Union([Type.String(), Type.Null()], { description: 'why the last attempt failed when it got no answer (a refused target, a timeout, a connection error)' }),
  next_attempt_at: NullableTime,
  attempt_history: Type.Array(WebhookAttempt, { description: 'every attempt, oldest first, with the status code, the first 1 KB of the answer, the error and the duration' }),
}, { title: 'AgenticWorkflowOutputDelivery' });
export type OutputDelivery = Static<typeof OutputDelivery>;
export const OutputDeliveryList = Paginated(OutputDelivery);

export const OutputSigningSecret = Type.Object({
  signing_secret: Type.String({
    description: 'whsec_ + base64 of HMAC-SHA256(key: the secret at the end of webhook.url, message: '
      + '`berth-agentic-workflow-outputs:<workflow id>`); verify deliveries with any Standard Webhooks library',
  }),
});
