// The table of everything that can own variables: projects, environments and each service type.
// Routes, scope names and 404 texts are derived from it, so a new service kind is one row here
// (with a path segment if it gets the per-parent routes) and no new variable code.

export type VariableScope = 'PROJECT' | 'ENVIRONMENT' | 'APPLICATION' | 'CONTAINER' | 'JOB' | 'HELM' | 'TERRAFORM' | 'AGENTIC_WORKFLOW';

export interface ParentKind {
  scope: VariableScope;
  level: 'project' | 'environment' | 'service';
  /** services.type for service scopes, null otherwise */
  serviceType: string | null;
  /** 404 text: "<label> not found" */
  label: string;
  /** path segment of the per-parent routes (`/{segment}/{id}/environmentVariable`); null: only `/variable` */
  segment: string | null;
  /** path parameter name of the per-parent routes */
  param: string;
  /** the {Parent} part of the public operationIds (listApplicationEnvironmentVariable, …) */
  operationName: string;
  /** operationId of `POST /{segment}/{id}/environmentVariable/import`; null: no such route */
  importOperationId: string | null;
}

export const PARENT_KINDS: readonly ParentKind[] = [
  { scope: 'PROJECT', level: 'project', serviceType: null, label: 'Project', segment: 'project', param: 'projectId', operationName: 'Project', importOperationId: null },
  { scope: 'ENVIRONMENT', level: 'environment', serviceType: null, label: 'Environment', segment: 'environment', param: 'environmentId', operationName: 'Environment', importOperationId: null },
  { scope: 'APPLICATION', level: 'service', serviceType: 'APPLICATION', label: 'Application', segment: 'application', param: 'applicationId', operationName: 'Application', importOperationId: 'importEnvironmentVariable' },
  { scope: 'CONTAINER', level: 'service', serviceType: 'CONTAINER', label: 'Container', segment: 'container', param: 'containerId', operationName: 'Container', importOperationId: 'importContainerEnvironmentVariable' },
  { scope: 'JOB', level: 'service', serviceType: 'JOB', label: 'Job', segment: 'job', param: 'jobId', operationName: 'Job', importOperationId: 'importJobEnvironmentVariable' },
  { scope: 'HELM', level: 'service', serviceType: 'HELM', label: 'Helm', segment: null, param: 'helmId', operationName: 'Helm', importOperationId: null },
  { scope: 'TERRAFORM', level: 'service', serviceType: 'TERRAFORM', label: 'Terraform', segment: null, param: 'terraformId', operationName: 'Terraform', importOperationId: null },
  { scope: 'AGENTIC_WORKFLOW', level: 'service', serviceType: 'AGENTIC_WORKFLOW', label: 'Agentic workflow', segment: null, param: 'agenticWorkflowId', operationName: 'AgenticWorkflow', importOperationId: null },
];

export const VARIABLE_SCOPES = PARENT_KINDS.map((k) => k.scope);

export function kindOfScope(scope: string): ParentKind {
  const kind = PARENT_KINDS.find((k) => k.scope === scope);
  if (!kind) throw new Error(`unknown variable scope ${scope}`);
  return kind;
}

/** the scope of a service's own variables, or null when that service type has none (e.g. DATABASE) */
export function scopeOfServiceType(type: string): VariableScope | null {
  return PARENT_KINDS.find((k) => k.serviceType === type)?.scope ?? null;
}

/** 1 project, 2 environment, 3 service: a larger depth is a lower (narrower) scope */
export function depthOf(scope: string): number {
  if (scope === 'BUILT_IN') return 0;
  const level = kindOfScope(scope).level;
  return level === 'project' ? 1 : level === 'environment' ? 2 : 3;
}
