// Notification channel request and response shapes: the webhook URL is write-only (only its host
// is returned), e-mail recipients, the incident kinds carried; and the "send a test" outcome.
import { Type } from 'typebox';
import { BaseRecord, NullableString, Paginated, Timestamp, Uuid } from '../../http/schemas.ts';
import { CHANNEL_KINDS, NOTIFICATION_KINDS } from './notifications.rules.ts';

const Kind = Type.String({ enum: [...CHANNEL_KINDS], description: 'SLACK and DISCORD: an incoming-webhook URL (Slack- or Discord-compatible); EMAIL: recipients, over the SMTP server of SMTP_URL' });
const Event = Type.String({ enum: [...NOTIFICATION_KINDS], description: 'an incident kind' });

const members = {
  name: Type.String({ minLength: 1, maxLength: 255, description: 'unique in the organization (case-insensitive)' }),
  kind: Kind,
  webhook_url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048, description: 'write-only: the incoming-webhook URL (SLACK, DISCORD); sealed at rest, never returned (webhook_host is)' })),
  recipients: Type.Optional(Type.Array(Type.String({ minLength: 3, maxLength: 254 }), { maxItems: 50, description: 'e-mail addresses (EMAIL)' })),
  events: Type.Optional(Type.Array(Event, { maxItems: NOTIFICATION_KINDS.length, description: 'the incident kinds this channel carries; all when omitted' })),
  enabled: Type.Optional(Type.Boolean({ default: true })),
};

export const NotificationChannelCreateRequest = Type.Object(members, { additionalProperties: false });

export const NotificationChannelEditRequest = Type.Object({
  ...members,
  name: Type.Optional(members.name),
  kind: Type.Optional(members.kind),
}, { additionalProperties: false, description: 'members sent change; omitted members keep their value (a new kind needs its webhook_url or recipients)' });

export const NotificationChannel = Type.Object({
  ...BaseRecord,
  organization_id: Uuid,
  name: Type.String(),
  kind: Type.String({ enum: [...CHANNEL_KINDS] }),
  webhook_host: Type.Union([Type.String(), Type.Null()], { description: 'the host of the webhook URL (the URL itself is a secret)' }),
  recipients: Type.Array(Type.String()),
  events: Type.Array(Type.String({ enum: [...NOTIFICATION_KINDS] })),
  enabled: Type.Boolean(),
  last_sent_at: Type.Union([Timestamp, Type.Null()], { description: 'when a message last reached the channel' }),
  last_error: Type.Union([Type.String(), Type.Null()], { description: 'why the last attempt to deliver a message failed (cleared by the next delivered one)' }),
});

export const NotificationChannelList = Paginated(NotificationChannel);

export const NotificationChannelTestResult = Type.Object({
  channel_id: Uuid,
  kind: Type.String({ enum: [...CHANNEL_KINDS] }),
  delivered: Type.Boolean({ description: 'true when the receiver accepted the message (2xx, or the SMTP server queued it)' }),
  status_code: Type.Union([Type.Integer(), Type.Null()], { description: "the webhook receiver's HTTP status (null for EMAIL or when none came)" }),
  reason: NullableString,
  duration_ms: Type.Integer(),
});
