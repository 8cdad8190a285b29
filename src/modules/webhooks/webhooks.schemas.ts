// Organization webhook request and response shapes (the public API's OrganizationWebhook*),
// and the delivery history items (WebhookEventResponse plus attempts).
import { Type } from 'typebox';
import { ACCEPTED_EVENT_NAMES, EVENT_KIND_NAMES } from '../../events/catalogue.ts';
import { BaseRecord, NullableString, Paginated, Timestamp, Uuid } from '../../http/schemas.ts';

const Kind = Type.Union([Type.Literal('STANDARD'), Type.Literal('SLACK')]);
const EnvironmentType = Type.Union(['DEVELOPMENT', 'STAGING', 'PRODUCTION', 'PREVIEW'].map((m) => Type.Literal(m)));
const EventName = Type.String({ enum: ACCEPTED_EVENT_NAMES, description: 'an event kind of the catalogue (public-client spellings accepted as aliases)' });
const EventKindName = Type.String({ enum: EVENT_KIND_NAMES, description: 'an event kind of the catalogue' });

const members = {
  kind: Type.Optional(Kind),
  target_url: Type.String({ minLength: 1, maxLength: 2048, description: 'absolute http or https URL' }),
  target_secret: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 512 }), Type.Null()], { description: 'write-only signing secret (whsec_ + base64); generated when absent' })),
  description: Type.Optional(NullableString),
  enabled: Type.Optional(Type.Boolean({ default: true })),
  events: Type.Array(EventName, { maxItems: 50 }),
  project_names_filter: Type.Optional(Type.Union([Type.Array(Type.String({ minLength: 1, maxLength: 255 }), { maxItems: 100 }), Type.Null()])),
  environment_types_filter: Type.Optional(Type.Union([Type.Array(EnvironmentType, { maxItems: 4 }), Type.Null()])),
};

export const WebhookCreateRequest = Type.Object(members, { additionalProperties: false });
export const WebhookEditRequest = Type.Object({
  ...members,
  target_url: Type.Optional(members.target_url),
  events: Type.Optional(members.events),
}, { additionalProperties: false, description: 'members sent change; omitted members keep their value' });

export const Webhook = Type.Object({
  ...BaseRecord,
  organization_id: Uuid,
  kind: Type.String(),
  target_url: Type.String(),
  description: NullableString,
  enabled: Type.Boolean(),
  events: Type.Array(EventKindName),
  project_names_filter: Type.Array(Type.String()),
  environment_types_filter: Type.Array(Type.String()),
  target_secret_set: Type.Boolean({ description: 'true when the signing secret was given as target_secret' }),
  disabled_reason: NullableString,
});

export const WebhookCreated = Type.Object({
  ...Webhook.properties,
  signing_secret: Type.Optional(Type.String({ description: 'the generated whsec_ signing secret, returned once at creation when target_secret was not given' })),
});

export const WebhookList = Paginated(Webhook);

export const WebhookAttempt = Type.Object({
  attempt: Type.Integer(),
  created_at: Timestamp,
  target_url: Type.String(),
  response_status_code: Type.Union([Type.Integer(), Type.Null()]),
  response_body: NullableString,
  error: NullableString,
  duration_ms: Type.Integer(),
});

export const WebhookEvent = Type.Object({
  id: Uuid,
  created_at: Timestamp,
  webhook_id: Uuid,
  kind: Type.String({ description: 'the event kind' }),
  matched_event: Type.String(),
  webhook_message_id: Type.String({ description: 'the webhook-id header, stable across retries' }),
  status: Type.String({ description: 'PENDING, DELIVERED or FAILED' }),
  target_url_used: NullableString,
  request: Type.Unknown({ description: 'the JSON body sent' }),
  target_response_status_code: Type.Union([Type.Integer(), Type.Null()]),
  target_response_body: NullableString,
  duration_ms: Type.Union([Type.Integer(), Type.Null()]),
  attempts: Type.Integer(),
  next_attempt_at: Type.Union([Timestamp, Type.Null()]),
  attempt_history: Type.Array(WebhookAttempt),
});

export const WebhookEventList = Paginated(WebhookEvent);
