// Organization annotations and labels groups (the public API's OrganizationAnnotationsGroup* and
// OrganizationLabelsGroup*): request and response shapes.
import { Type, type Static } from 'typebox';
import { Paginated } from '../../../http/schemas.ts';
import { AP, AnnotationsGroup, LabelsGroup, literalUnion } from '../common.schemas.ts';

const ANNOTATION_SCOPES = ['DEPLOYMENTS', 'STATEFUL_SETS', 'SERVICES', 'INGRESS', 'GATEWAY_API_ROUTES', 'HPA', 'PODS', 'SECRETS', 'JOBS', 'CRON_JOBS'] as const;

const GroupName = Type.String({ minLength: 1, maxLength: 255, pattern: '\\S' });
/** Kubernetes qualified name with an optional DNS prefix (prefix/name) */
const KeyPattern = '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$';
const Key = Type.String({ minLength: 1, maxLength: 316, pattern: KeyPattern, description: 'Kubernetes key: [prefix/]name' });
const LabelValue = Type.String({ maxLength: 63, pattern: '^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$' });

export const AnnotationsGroupRequest = Type.Object({
  name: GroupName,
  annotations: Type.Array(Type.Object({ key: Key, value: Type.String({ maxLength: 65536 }) }, AP), { maxItems: 200 }),
  scopes: Type.Array(literalUnion(ANNOTATION_SCOPES), { minItems: 1, uniqueItems: true }),
}, AP);
export type AnnotationsGroupRequest = Static<typeof AnnotationsGroupRequest>;

export const LabelsGroupRequest = Type.Object({
  name: GroupName,
  labels: Type.Array(Type.Object({ key: Key, value: LabelValue, propagate_to_cloud_provider: Type.Optional(Type.Boolean()) }, AP), { maxItems: 200 }),
}, AP);
export type LabelsGroupRequest = Static<typeof LabelsGroupRequest>;

export { AnnotationsGroup, LabelsGroup };
export type AnnotationsGroup = Static<typeof AnnotationsGroup>;
export type LabelsGroup = Static<typeof LabelsGroup>;

export const AnnotationsGroupList = Paginated(AnnotationsGroup);
export const LabelsGroupList = Paginated(LabelsGroup);
