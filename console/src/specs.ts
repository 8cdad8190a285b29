// The create/edit forms of each service type: the contract's fields (seed and qovery-facts) with
// the defaults berth applies (docs/decisions/0141) shown as placeholders, and the API paths of
// each type. Edit forms send only what the user filled (PUT changes what is sent).
import type { FieldSpec } from './form.tsx';

export type ServiceKind = 'application' | 'container' | 'database' | 'job';
export const SERVICE_KINDS: ServiceKind[] = ['application', 'container', 'database', 'job'];

export const KIND_OF_TYPE: Record<string, ServiceKind | 'workflow'> = {
  APPLICATION: 'application', CONTAINER: 'container', DATABASE: 'database', JOB: 'job', AGENTIC_WORKFLOW: 'workflow',
};

const runtime: FieldSpec[] = [
  { name: 'cpu', label: 'CPU (millicores)', kind: 'number', hint: '500' },
  { name: 'memory', label: 'Memory (MB)', kind: 'number', hint: '512' },
  { name: 'min_running_instances', label: 'Minimum instances', kind: 'number', hint: '1' },
  { name: 'max_running_instances', label: 'Maximum instances', kind: 'number', hint: '1', help: '-1 means no limit' },
];

const port: FieldSpec[] = [
  { name: 'ports.0.internal_port', label: 'Port the service listens on', kind: 'number', help: 'leave empty for no port' },
  { name: 'ports.0.publicly_accessible', label: 'Publicly accessible', kind: 'checkbox' },
];

/** the hint ('true' or none) is the environment's auto_preview, which a new service takes when not sent */
const autoPreview: FieldSpec = {
  name: 'auto_preview', label: 'Preview environment for each pull request', kind: 'checkbox',
  help: 'a pull request against the tracked branch gets a copy of the environment (needs the organization\'s git webhook)',
};

export const CREATE_FIELDS: Record<ServiceKind, FieldSpec[]> = {
  application: [
    { name: 'name', label: 'Name', required: true },
    { name: 'description', label: 'Description', kind: 'textarea' },
    { name: 'git_repository.url', label: 'Git repository URL', kind: 'url', required: true, hint: 'https://github.com/you/app.git' },
    { name: 'git_repository.branch', label: 'Branch', hint: 'main' },
    { name: 'git_repository.root_path', label: 'Root path', hint: '/' },
    { name: 'git_repository.git_token_id', label: 'Git token', kind: 'select', empty: 'none (a public repository)', help: 'for a private repository: one of the organization\'s git tokens' },
    { name: 'build_mode', label: 'Build mode', kind: 'select', options: ['DOCKER'], hint: 'DOCKER' },
    { name: 'dockerfile_path', label: 'Dockerfile path', hint: 'Dockerfile' },
    ...runtime, ...port,
    { name: 'auto_deploy', label: 'Deploy automatically on new commits', kind: 'checkbox', hint: 'true' },
    autoPreview,
  ],
  container: [
    { name: 'name', label: 'Name', required: true },
    { name: 'description', label: 'Description', kind: 'textarea' },
    { name: 'registry_id', label: 'Container registry', kind: 'select', required: true },
    { name: 'image_name', label: 'Image name', required: true, hint: 'nginx' },
    { name: 'tag', label: 'Tag', required: true, hint: 'latest' },
    ...runtime, ...port,
  ],
  database: [
    { name: 'name', label: 'Name', required: true },
    { name: 'description', label: 'Description', kind: 'textarea' },
    { name: 'type', label: 'Type', kind: 'select', options: ['POSTGRESQL', 'MYSQL', 'MONGODB', 'REDIS'], required: true },
    { name: 'version', label: 'Version', required: true, hint: '16' },
    { name: 'mode', label: 'Mode', kind: 'select', options: ['CONTAINER', 'MANAGED'], required: true },
    { name: 'accessibility', label: 'Accessibility', kind: 'select', options: ['PRIVATE', 'PUBLIC'], hint: 'PRIVATE' },
    { name: 'cpu', label: 'CPU (millicores)', kind: 'number', hint: '250' },
    { name: 'memory', label: 'Memory (MB)', kind: 'number', hint: '100–512 by type' },
    { name: 'storage', label: 'Storage (GB)', kind: 'number', hint: '10' },
  ],
  job: [
    { name: 'name', label: 'Name', required: true },
    { name: 'description', label: 'Description', kind: 'textarea' },
    { name: 'source.image.registry_id', label: 'Container registry', kind: 'select', required: true },
    { name: 'source.image.image_name', label: 'Image name', required: true },
    { name: 'source.image.tag', label: 'Tag', required: true },
    { name: 'schedule.cronjob.scheduled_at', label: 'Cron schedule (a cron job)', hint: '0 3 * * *', help: 'or leave empty and set a lifecycle command' },
    { name: 'schedule.cronjob.timezone', label: 'Time zone', hint: 'Etc/UTC' },
    { name: 'schedule.on_start.entrypoint', label: 'Entrypoint on environment start (a lifecycle job)' },
    { name: 'cpu', label: 'CPU (millicores)', kind: 'number', hint: '500' },
    { name: 'memory', label: 'Memory (MB)', kind: 'number', hint: '512' },
    { name: 'max_nb_restart', label: 'Restarts allowed', kind: 'number', hint: '0' },
    { name: 'max_duration_seconds', label: 'Maximum duration (s)', kind: 'number', hint: '300' },
  ],
};

/** what an edit may change: the create fields less those the type fixes at creation */
export const EDIT_FIELDS: Record<ServiceKind, FieldSpec[]> = {
  application: CREATE_FIELDS.application.filter((f) => !f.name.startsWith('ports.')).map((f) => ({ ...f, required: false })),
  container: CREATE_FIELDS.container.filter((f) => !f.name.startsWith('ports.')).map((f) => ({ ...f, required: false })),
  database: CREATE_FIELDS.database.filter((f) => f.name !== 'type' && f.name !== 'mode').map((f) => ({ ...f, required: false })),
  job: [
    ...CREATE_FIELDS.job.filter((f) => f.name.startsWith('source.') === false && !f.name.startsWith('schedule.')).map((f) => ({ ...f, required: false })),
    // acted on for jobs built from git (made through the API; the console makes image jobs)
    { ...autoPreview, help: 'for a job built from git: a pull request against its branch gets a copy of the environment' },
  ],
};

export const WORKFLOW_FIELDS: FieldSpec[] = [
  { name: 'name', label: 'Name', required: true },
  { name: 'description', label: 'Description', kind: 'textarea' },
  { name: 'agent_prompt', label: 'Agent prompt', kind: 'textarea' },
  { name: 'model.type', label: 'Model', kind: 'select', options: ['CLAUDE', 'BEDROCK'] },
  { name: 'model.llm_provider_id', label: 'LLM provider', kind: 'select', help: 'the credential comes from this provider' },
  { name: 'schedule.cron_expression', label: 'Cron schedule', hint: '0 * * * *', help: 'at most once every 5 minutes; leave empty for webhook-only' },
  { name: 'schedule.timezone', label: 'Time zone', hint: 'Etc/UTC' },
  { name: 'execution_mode', label: 'Execution mode', kind: 'select', options: ['IN_PLACE', 'CLONE_ENVIRONMENT'], hint: 'IN_PLACE' },
  { name: 'enabled', label: 'Enabled', kind: 'checkbox', hint: 'true' },
  { name: 'resources.cpu_milli', label: 'CPU (millicores)', kind: 'number', hint: '1000' },
  { name: 'resources.ram_mib', label: 'Memory (MiB)', kind: 'number', hint: '1024' },
  { name: 'resources.gpu', label: 'GPUs', kind: 'number', hint: '0', help: 'stored, not yet applied by the engine' },
  { name: 'resources.storage_gib', label: 'Storage (GiB)', kind: 'number', hint: '0', help: 'stored, not yet applied by the engine' },
];

export const LABEL: Record<ServiceKind | 'workflow', string> = {
  application: 'Application', container: 'Container', database: 'Database', job: 'Job', workflow: 'Agentic workflow',
};

/** variables live on projects, environments and every service type but databases */
const VARIABLE_SCOPES = ['project', 'environment', 'application', 'container', 'job'] as const;
export type VariableScope = (typeof VARIABLE_SCOPES)[number];
