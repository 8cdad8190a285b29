// Request examples of the services of an environment: applications, containers, databases, jobs,
// their advanced settings, and the deployment actions that take options. Keyed by operationId;
// /openapi.json shows them and test/services and test/deployments send them
// (docs/decisions/0407).
import { EXAMPLE_IDS, frozen } from './common.ts';

export const serviceExamples = frozen({
  createApplication: {
    name: 'api',
    git_repository: { url: 'https://github.com/acme/api.git', branch: 'main' },
    build_mode: 'DOCKER',
    dockerfile_path: 'Dockerfile',
    cpu: 500,
    memory: 512,
    min_running_instances: 1,
    max_running_instances: 2,
    ports: [{ internal_port: 8080, external_port: 443, protocol: 'HTTP', publicly_accessible: true }],
  },
  editApplication: { cpu: 1000, max_running_instances: 4 },

  createContainer: {
    name: 'redis-cache',
    registry_id: EXAMPLE_IDS.containerRegistry,
    image_name: 'library/redis',
    tag: '7',
  },
  editContainer: { tag: '7.4' },

  createDatabase: {
    name: 'main-db',
    type: 'POSTGRESQL',
    version: '16',
    mode: 'CONTAINER',
    accessibility: 'PRIVATE',
    cpu: 500,
    memory: 1024,
    storage: 20,
  },
  editDatabase: { cpu: 1000, memory: 2048, storage: 50 },

  createJob: {
    name: 'nightly-report',
    source: { image: { image_name: 'acme/report', tag: '1.2.0', registry_id: EXAMPLE_IDS.containerRegistry } },
    schedule: { cronjob: { scheduled_at: '0 3 * * *' } },
  },
  editJob: { schedule: { cronjob: { scheduled_at: '30 2 * * *', timezone: 'Europe/Paris' } } },

  editAdvancedSettings: { 'network.ingress.proxy_body_size_mb': 250, 'deployment.update_strategy.type': 'Recreate' },
  editContainerAdvancedSettings: { 'network.ingress.proxy_request_buffering': 'off', 'network.ingress.proxy_read_timeout_seconds': 120 },
  editJobAdvancedSettings: { 'cronjob.concurrency_policy': 'Replace', 'build.ram_max_in_gib': 4 },

  deployApplication: { git_commit_id: '4f2d9c1b7e3a8d6f0b5c2e9a1d7f3b8c6e0a4d2f' },
  deployContainer: { image_tag: '7.4' },
  deployJob: { image_tag: '1.3.0' },
});

/** the body of every cancellation (of a deployment, a queued request, an environment's or a workflow's) */
const cancel = frozen({ force_cancel: false });
export const cancelExamples = frozen({
  cancelDeployment: cancel,
  cancelDeploymentRequest: cancel,
  cancelEnvironmentDeployment: cancel,
  cancelAgenticWorkflowDeployment: cancel,
});
