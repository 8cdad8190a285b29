// Shapes of GET /organization/{id}/events: the public API's getOrganizationEvents query and its
// OrganizationEventResponseList answer.
import { Type } from 'typebox';
import { NullableString, Uuid } from '../../http/schemas.ts';

export const EventsQuery = Type.Object({
  pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'events per page, 1 to 100 (default 20)' })),
  continueToken: Type.Optional(Type.String({ description: 'older events: the token of links.next' })),
  stepBackToken: Type.Optional(Type.String({ description: 'newer events: the token of links.previous' })),
  fromTimestamp: Type.Optional(Type.String({ description: 'ISO 8601, or epoch seconds, milliseconds or nanoseconds' })),
  toTimestamp: Type.Optional(Type.String({ description: 'ISO 8601, or epoch seconds, milliseconds or nanoseconds' })),
  eventType: Type.Optional(Type.String({ description: 'CREATE, UPDATE, DELETE, ACCEPT, CLONE, IMPORT, TRIGGER_DEPLOY, TRIGGER_REDEPLOY, TRIGGER_STOP, TRIGGER_RESTART, TRIGGER_UNINSTALL, TRIGGER_CANCEL' })),
  targetType: Type.Optional(Type.String({ description: 'ORGANIZATION, PROJECT, ENVIRONMENT, APPLICATION, CONTAINER, DATABASE, JOB, AGENTIC_WORKFLOW, CLUSTER, CONTAINER_REGISTRY, WEBHOOK, MEMBERS_AND_ROLES' })),
  targetId: Type.Optional(Uuid),
  subTargetType: Type.Optional(Type.String()),
  triggeredBy: Type.Optional(Type.String()),
  origin: Type.Optional(Type.String({ description: 'API, CLI, CONSOLE, … (sent as X-Berth-Origin; API by default)' })),
  serviceProjectId: Type.Optional(Uuid),
  serviceEnvironmentId: Type.Optional(Uuid),
});

const OrganizationEvent = Type.Object({
  id: Uuid,
  timestamp: Type.String({ format: 'date-time' }),
  event_type: Type.String(),
  target_id: Type.Union([Uuid, Type.Null()]),
  target_name: Type.String(),
  target_type: Type.String(),
  sub_target_type: NullableString,
  change: Type.String({ description: 'the members the request sent (names only, never values)' }),
  origin: Type.String(),
  triggered_by: Type.String({ description: 'the user, or `token <name>`' }),
  project_id: Type.Union([Uuid, Type.Null()]),
  project_name: Type.String(),
  environment_id: Type.Union([Uuid, Type.Null()]),
  environment_name: Type.String(),
  user_agent: NullableString,
  original_change: NullableString,
}, { title: 'OrganizationEventResponse' });

export const OrganizationEventList = Type.Object({
  events: Type.Array(OrganizationEvent),
  links: Type.Object({ previous: Type.Optional(Type.String()), next: Type.Optional(Type.String()) }),
  organization_max_limit_reached: Type.Boolean(),
});
