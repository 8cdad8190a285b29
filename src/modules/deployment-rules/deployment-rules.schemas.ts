// Deployment rule shapes (the public API's ProjectDeploymentRule* and EnvironmentDeploymentRule*).
// Times are accepted as `HH:MM` or as a date-time whose time part is used, and returned in the
// public API's form (1970-01-01THH:MM:00.000Z), read in the rule's time zone.
import { Type, type Static } from 'typebox';
import { BaseRecord, NullableString, Paginated, Uuid } from '../../http/schemas.ts';
import { WEEKDAYS } from './deployment-rules.rules.ts';

const Weekday = Type.Union(WEEKDAYS.map((d) => Type.Literal(d)));
const Weekdays = Type.Array(Weekday, { minItems: 1, maxItems: 7 });
const Time = Type.String({ minLength: 4, maxLength: 40, description: 'HH:MM, or a date-time whose time part is used' });
const TimeZone = Type.String({ minLength: 1, maxLength: 100, description: 'IANA time zone, e.g. UTC or Europe/Paris' });
const ENVIRONMENT_MODES = ['DEVELOPMENT', 'STAGING', 'PRODUCTION', 'PREVIEW'] as const;

export const ProjectDeploymentRuleRequest = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255, pattern: '\\S' }),
  description: Type.Optional(NullableString),
  mode: Type.Union(ENVIRONMENT_MODES.map((m) => Type.Literal(m))),
  cluster_id: Uuid,
  timezone: TimeZone,
  start_time: Time,
  stop_time: Time,
  weekdays: Weekdays,
  auto_stop: Type.Optional(Type.Boolean()),
  wildcard: Type.Optional(Type.String({ maxLength: 255, description: 'environment names it applies to: * any run of characters, ? one character' })),
}, { additionalProperties: false });
export type ProjectDeploymentRuleRequest = Static<typeof ProjectDeploymentRuleRequest>;

export const ProjectDeploymentRule = Type.Object({
  ...BaseRecord,
  project: Type.Object({ id: Uuid }),
  name: Type.String(),
  description: NullableString,
  mode: Type.String(),
  cluster_id: Uuid,
  timezone: Type.String(),
  start_time: Type.String(),
  stop_time: Type.String(),
  weekdays: Type.Array(Type.String()),
  auto_stop: Type.Boolean(),
  wildcard: Type.String(),
  priority_index: Type.Integer({ description: 'first matching rule (lowest index) wins' }),
});
export type ProjectDeploymentRule = Static<typeof ProjectDeploymentRule>;
export const ProjectDeploymentRuleList = Paginated(ProjectDeploymentRule);

export const PriorityOrderRequest = Type.Object({
  project_deployment_rule_ids_in_order: Type.Array(Uuid, { maxItems: 1000 }),
}, { additionalProperties: false });

export const EnvironmentDeploymentRuleRequest = Type.Object({
  timezone: TimeZone,
  start_time: Time,
  stop_time: Time,
  weekdays: Weekdays,
  auto_stop: Type.Optional(Type.Boolean()),
  auto_preview: Type.Optional(Type.Boolean()),
  on_demand_preview: Type.Optional(Type.Boolean()),
}, { additionalProperties: false });
export type EnvironmentDeploymentRuleRequest = Static<typeof EnvironmentDeploymentRuleRequest>;

export const EnvironmentDeploymentRule = Type.Object({
  ...BaseRecord,
  environment: Type.Object({ id: Uuid }),
  timezone: Type.String(),
  start_time: Type.String(),
  stop_time: Type.String(),
  weekdays: Type.Array(Type.String()),
  auto_stop: Type.Boolean(),
  auto_preview: Type.Boolean({ description: "the environment's auto_preview" }),
  on_demand_preview: Type.Boolean(),
});
export type EnvironmentDeploymentRule = Static<typeof EnvironmentDeploymentRule>;
