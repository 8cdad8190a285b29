// Request and response shapes of deployments, actions, logs and manifests.
import { Type } from 'typebox';
import { NullableString, PageQuery, Paginated, Timestamp, Uuid } from '../../http/schemas.ts';

const OptionalId = Type.Optional(Uuid);

export const Deployment = Type.Object({
  id: Uuid,
  created_at: Timestamp,
  updated_at: Type.Union([Timestamp, Type.Null()]),
  status: Type.String({ description: 'QUEUED, BUILDING, DEPLOYING, DEPLOYED, BUILD_ERROR, DEPLOYMENT_ERROR, STOPPING, STOPPED, RESTARTING, RESTARTED, DELETING, DELETED, *_ERROR, CANCELED' }),
  action: Type.String({ description: 'DEPLOY, REDEPLOY, STOP, RESTART, UNINSTALL' }),
  service_id: Uuid,
  service_type: Type.String(),
  service_name: Type.String(),
  application_id: OptionalId,
  container_id: OptionalId,
  database_id: OptionalId,
  job_id: OptionalId,
  helm_id: OptionalId,
  terraform_id: OptionalId,
  argocd_app_id: OptionalId,
  agentic_workflow_id: OptionalId,
  environment_id: Uuid,
  project_id: Uuid,
  organization_id: Uuid,
  git_commit_id: NullableString,
  image_tag: NullableString,
  origin: Type.String(),
  triggered_by: NullableString,
  message: NullableString,
  metadata: Type.Record(Type.String(), Type.Unknown()),
  finished: Type.Boolean(),
  started_at: Type.Union([Timestamp, Type.Null()]),
  finished_at: Type.Union([Timestamp, Type.Null()]),
});

export const DeploymentList = Paginated(Deployment);

export const EnvironmentActionResult = Type.Object({
  id: Uuid,
  state: Type.String(),
  deployment_request_id: Type.Union([Uuid, Type.Null()]),
  deployments: Type.Array(Deployment),
});

export const ApplicationDeployRequest = Type.Object({ git_commit_id: Type.Optional(NullableString) }, { additionalProperties: false });
export const ContainerDeployRequest = Type.Object({ image_tag: Type.Optional(NullableString) }, { additionalProperties: false });
export const JobDeployRequest = Type.Object({
  git_commit_id: Type.Optional(NullableString), image_tag: Type.Optional(NullableString),
}, { additionalProperties: false });
export const EmptyRequest = Type.Object({}, { additionalProperties: false });
export const CancelRequest = Type.Object({ force_cancel: Type.Optional(Type.Boolean()) }, { additionalProperties: false });

export const HistoryQuery = Type.Object({
  ...PageQuery.properties,
  pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'alias of page_size (public clients)' })),
});

const LogLine = Type.Object({
  id: Type.String(),
  created_at: Timestamp,
  message: Type.String(),
  kind: Type.String({ description: 'BUILD, DEPLOY or RUNTIME' }),
  deployment_id: Type.Union([Uuid, Type.Null()]),
  service_id: Uuid,
});

export const ServiceLogQuery = Type.Object({
  tail: Type.Optional(Type.Integer({ description: 'the last N lines, 1 to 10000 (default 1000)' })),
});
export const ServiceLogList = Type.Object({ results: Type.Array(LogLine) });

export const DeploymentLogQuery = Type.Object({
  ...PageQuery.properties,
  tail: Type.Optional(Type.Integer({ minimum: 1, maximum: 10000, description: 'the last N lines instead of a page' })),
});
export const DeploymentLogList = Paginated(LogLine);

export const ManifestQuery = Type.Object({
  format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('yaml')])),
});
export const ManifestList = Type.Object({
  results: Type.Array(Type.Record(Type.String(), Type.Unknown())),
});

/** histories also carry `page` and `page_size` at the top (the public clients' paginated lists) */
export const DeploymentHistoryList = Type.Object({
  ...DeploymentList.properties,
  page: Type.Integer(),
  page_size: Type.Integer(),
});

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

export const EnvironmentStatus = Type.Object({
  id: Uuid,
  state: Type.String({ description: 'the running deployment\'s status, else DEPLOYED, STOPPED, READY (never deployed) or the last error status' }),
  last_deployment_date: Nullable(Timestamp),
  last_deployment_state: Type.String(),
  last_deployment_id: Type.Union([Uuid, Type.Null()]),
  total_deployment_duration_in_seconds: Type.Union([Type.Integer(), Type.Null()]),
  origin: NullableString,
  triggered_by: NullableString,
  deployment_status: Type.String({ description: 'NEVER_DEPLOYED, OUT_OF_DATE or UP_TO_DATE' }),
  deployment_request_id: Type.Union([Uuid, Type.Null()]),
}, { title: 'EnvironmentStatus' });

const StatusEntry = Type.Object({
  id: Uuid,
  state: Type.String(),
  service_deployment_status: Type.String(),
  last_deployment_date: Nullable(Timestamp),
  is_part_last_deployment: Type.Boolean(),
}, { title: 'Status' });

export const EnvironmentStatuses = Type.Object({
  environment: EnvironmentStatus,
  applications: Type.Array(StatusEntry),
  containers: Type.Array(StatusEntry),
  jobs: Type.Array(StatusEntry),
  databases: Type.Array(StatusEntry),
  helms: Type.Array(StatusEntry),
  terraforms: Type.Array(StatusEntry),
  agentic_workflows: Type.Array(StatusEntry),
});
