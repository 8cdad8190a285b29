// The table of everything that can own variables: projects, environments and each service type.
// Scope names and 404 texts are derived from it, so a new service kind is one row here and no new
// variable code (plus its lines in parent.routes.ts if it gets the per-parent routes).

export type VariableScope = 'PROJECT' | 'ENVIRONMENT' | 'APPLICATION' | 'CONTAINER' | 'JOB' | 'HELM' | 'TERRAFORM' | 'AGENTIC_WORKFLOW';

export interface ParentKind {
  scope: VariableScope;
  level: 'project' | 'environment' | 'service';
  /** services.type for service scopes, null otherwise */
  serviceType: string | null;
  /** 404 text: "<label> not found" */
  label: string;
  /** path parameter name of the per-parent routes (parent.routes.ts; HELM, TERRAFORM and AGENTIC_WORKFLOW have none, only `/variable`) */
  param: string;
}

const PARENT_KINDS: readonly ParentKind[] = [
  { scope: 'PROJECT', level: 'project', serviceType: null, label: 'Project', param: 'projectId' },
  { scope: 'ENVIRONMENT', level: 'environment', serviceType: null, label: 'Environment', param: 'environmentId' },
  { scope: 'APPLICATION', level: 'service', serviceType: 'APPLICATION', label: 'Application', param: 'applicationId' },
  { scope: 'CONTAINER', level: 'service', serviceType: 'CONTAINER', label: 'Container', param: 'containerId' },
  { scope: 'JOB', level: 'service', serviceType: 'JOB', label: 'Job', param: 'jobId' },
  { scope: 'HELM', level: 'service', serviceType: 'HELM', label: 'Helm', param: 'helmId' },
  { scope: 'TERRAFORM', level: 'service', serviceType: 'TERRAFORM', label: 'Terraform', param: 'terraformId' },
  { scope: 'AGENTIC_WORKFLOW', level: 'service', serviceType: 'AGENTIC_WORKFLOW', label: 'Agentic workflow', param: 'agenticWorkflowId' },
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
