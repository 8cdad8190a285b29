// Container registry request and response shapes (the public API's ContainerRegistryRequest /
// ContainerRegistryResponse). Credentials in `config` are write-only: responses carry only the
// non-secret members of config and `has_credential`.
import { Type, type Static } from 'typebox';
import { BaseRecord, NullableString, Paginated, Uuid } from '../../http/schemas.ts';

const REGISTRY_KINDS = ['ECR', 'SCALEWAY_CR', 'DOCKER_HUB', 'GITHUB_CR', 'GITHUB_ENTERPRISE_CR', 'GITLAB_CR', 'PUBLIC_ECR',
  'DOCR', 'GENERIC_CR', 'GCP_ARTIFACT_REGISTRY', 'AZURE_CR'] as const;
export type RegistryKind = (typeof REGISTRY_KINDS)[number];

const Text = Type.Optional(Type.String({ maxLength: 4096 }));
const Secret = Type.Optional(Type.String({ maxLength: 65536, description: 'write-only' }));

/** the members of config that are credentials: sealed at rest, never returned */
export const SECRET_CONFIG_KEYS = ['username', 'password', 'access_key_id', 'secret_access_key', 'scaleway_access_key',
  'scaleway_secret_key', 'json_credentials', 'azure_client_secret'] as const;

const RegistryConfigRequest = Type.Object({
  username: Secret,
  password: Secret,
  access_key_id: Secret,
  secret_access_key: Secret,
  scaleway_access_key: Secret,
  scaleway_secret_key: Secret,
  json_credentials: Secret,
  azure_client_secret: Secret,
  region: Text,
  role_arn: Text,
  scaleway_project_id: Text,
  project_id: Text,
  gcp_credentials_type: Text,
  service_account_email: Text,
  workload_identity_provider_resource: Text,
  token_lifetime_seconds: Type.Optional(Type.Integer({ minimum: 1 })),
  azure_tenant_id: Text,
  azure_subscription_id: Text,
  azure_application_id: Text,
}, { additionalProperties: false, description: 'credentials (username, password, access keys, json_credentials…) are write-only' });
type RegistryConfigRequest = Static<typeof RegistryConfigRequest>;

const RegistryConfigResponse = Type.Object({
  region: Text,
  role_arn: Text,
  scaleway_project_id: Text,
  project_id: Text,
  gcp_credentials_type: Text,
  service_account_email: Text,
  workload_identity_provider_resource: Text,
  token_lifetime_seconds: Type.Optional(Type.Integer()),
  azure_tenant_id: Text,
  azure_subscription_id: Text,
  azure_application_id: Text,
}, { description: 'the non-secret members of config' });

export const ContainerRegistryRequest = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255, pattern: '\\S' }),
  kind: Type.Union(REGISTRY_KINDS.map((k) => Type.Literal(k))),
  url: Type.Optional(Type.String({ format: 'uri', maxLength: 2048, description: 'defaults per kind (DOCKER_HUB https://docker.io, GITHUB_CR https://ghcr.io, …)' })),
  description: Type.Optional(NullableString),
  config: Type.Optional(RegistryConfigRequest),
}, { additionalProperties: false });
export type ContainerRegistryRequest = Static<typeof ContainerRegistryRequest>;

export const ContainerRegistry = Type.Object({
  ...BaseRecord,
  organization: Type.Object({ id: Uuid }),
  name: Type.String(),
  kind: Type.String(),
  url: Type.String(),
  description: Type.String(),
  config: RegistryConfigResponse,
  has_credential: Type.Boolean({ description: 'whether credentials are stored (they are never returned)' }),
});
export type ContainerRegistry = Static<typeof ContainerRegistry>;
export const ContainerRegistryList = Paginated(ContainerRegistry);

/** what a service response shows of its registry */
export interface RegistryRef { id: string; name: string; url: string; kind: string }
