// The deployment state machine, pure: the statuses each action walks through, the service
// `state` shown at each step, the error status of each action, and the member naming a
// service's id by its type (application_id, job_id, …).

export type DeploymentAction = 'DEPLOY' | 'REDEPLOY' | 'STOP' | 'RESTART' | 'UNINSTALL';

export interface DeploymentRecord {
  id: string;
  created_at: string;
  updated_at: string | null;
  status: string;
  action: DeploymentAction;
  service_id: string;
  service_type: string;
  service_name: string;
  environment_id: string;
  project_id: string;
  organization_id: string;
  git_commit_id: string | null;
  image_tag: string | null;
  origin: string;
  triggered_by: string | null;
  message: string | null;
  metadata: Record<string, unknown>;
  finished: boolean;
  started_at: string | null;
  finished_at: string | null;
  /** the service id under its type's name: application_id, container_id, database_id, job_id, … */
  [typeKey: string]: unknown;
}

/** what a service runs from git, for deploy on push's baseline (deployments.repo's sourceBaseline) */
export interface SourceBaseline {
  /** ever asked to deploy (DEPLOY or REDEPLOY) */
  deployed: boolean;
  /** the commit of the newest such deployment that knows it or is under way (null: not known yet, or none) */
  commit: string | null;
  /** whether that deployment has finished; null when there is none */
  finished: boolean | null;
}

const TYPE_KEYS: Record<string, string> = {
  APPLICATION: 'application_id', CONTAINER: 'container_id', DATABASE: 'database_id', JOB: 'job_id',
  HELM: 'helm_id', TERRAFORM: 'terraform_id', ARGOCD_APP: 'argocd_app_id', AGENTIC_WORKFLOW: 'agentic_workflow_id',
};

export function serviceIdKey(type: string): string {
  return TYPE_KEYS[type] ?? 'service_id';
}

/** a step of the machine: the deployment status while it runs and what the engine does */
export type Step = 'BUILD' | 'APPLY' | 'STOP' | 'RESTART' | 'UNINSTALL';

const RUNNING_STATUS: Record<Step, string> = {
  BUILD: 'BUILDING', APPLY: 'DEPLOYING', STOP: 'STOPPING', RESTART: 'RESTARTING', UNINSTALL: 'DELETING',
};

/** the steps an action walks through, in order */
export function stepsOf(action: DeploymentAction, needsBuild: boolean): Step[] {
  switch (action) {
    case 'DEPLOY':
    case 'REDEPLOY':
      return needsBuild ? ['BUILD', 'APPLY'] : ['APPLY'];
    case 'STOP': return ['STOP'];
    case 'RESTART': return ['RESTART'];
    case 'UNINSTALL': return ['UNINSTALL'];
  }
}

export function runningStatus(step: Step): string {
  return RUNNING_STATUS[step];
}

/** the step a running status belongs to (to resume from it after a crash) */
export function stepOfStatus(status: string): Step | null {
  const found = (Object.entries(RUNNING_STATUS) as Array<[Step, string]>).find(([, s]) => s === status);
  return found ? found[0] : null;
}

export const SUCCESS_STATUS: Record<DeploymentAction, string> = {
  DEPLOY: 'DEPLOYED', REDEPLOY: 'DEPLOYED', STOP: 'STOPPED', RESTART: 'RESTARTED', UNINSTALL: 'DELETED',
};

export function errorStatus(action: DeploymentAction, step: Step): string {
  if (step === 'BUILD') return 'BUILD_ERROR';
  switch (action) {
    case 'DEPLOY':
    case 'REDEPLOY': return 'DEPLOYMENT_ERROR';
    case 'STOP': return 'STOP_ERROR';
    case 'RESTART': return 'RESTART_ERROR';
    case 'UNINSTALL': return 'DELETE_ERROR';
  }
}

/** the service `state` while an action waits in the queue */
export const QUEUED_STATE: Record<DeploymentAction, string> = {
  DEPLOY: 'DEPLOYMENT_QUEUED', REDEPLOY: 'DEPLOYMENT_QUEUED', STOP: 'STOP_QUEUED', RESTART: 'RESTART_QUEUED', UNINSTALL: 'DELETE_QUEUED',
};

export const STABLE_STATES = new Set(['RUNNING', 'STOPPED', 'ERROR']);

const FAILED_STATUSES = new Set(['BUILD_ERROR', 'DEPLOYMENT_ERROR', 'STOP_ERROR', 'RESTART_ERROR', 'DELETE_ERROR']);

/** the event a final status announces */
export function settledEvent(status: string): 'DEPLOYMENT_SUCCEEDED' | 'DEPLOYMENT_FAILED' | 'DEPLOYMENT_CANCELLED' {
  if (status === 'CANCELED') return 'DEPLOYMENT_CANCELLED';
  return FAILED_STATUSES.has(status) ? 'DEPLOYMENT_FAILED' : 'DEPLOYMENT_SUCCEEDED';
}
