// Request examples of the organization and its hierarchy: organizations, members, invitations,
// API tokens, clusters, container registries, git tokens, projects, environments, deployment rules,
// annotations and labels groups. Keyed by operationId; /openapi.json shows them and the tests
// in test/foundation, test/hierarchy and test/services send them (docs/decisions/0407).
import { EXAMPLE_IDS, frozen } from './common.ts';

const OFFICE_DAYS = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY'];

export const hierarchyExamples = frozen({
  createOrganization: {
    name: 'Acme',
    description: 'The Acme shop and its back office',
    website_url: 'https://acme.example.com',
    admin_emails: ['ops@acme.example.com'],
  },
  editOrganization: {
    name: 'Acme',
    description: 'The Acme shop, its back office and the data team',
    website_url: 'https://www.acme.example.com',
  },
  postOrganizationTransferOwnership: { user_id: EXAMPLE_IDS.user },
  editOrganizationMemberRole: { user_id: EXAMPLE_IDS.user, role: 'ADMIN' },
  deleteMember: { user_id: EXAMPLE_IDS.user },
  postInviteMember: { email: 'bob@acme.example.com', role: 'DEVOPS' },
  createOrganizationApiToken: { name: 'ci', description: 'Deploys from the CI pipeline', role: 'DEVOPS' },

  createCluster: {
    name: 'production-eu',
    description: 'Production workloads in Paris',
    region: 'eu-west-3',
    cloud_provider: 'AWS',
    kubernetes: 'MANAGED',
    production: true,
    instance_type: 't3.xlarge',
    min_running_nodes: 3,
    max_running_nodes: 10,
    disk_size: 100,
    cpu: 16000,
    memory: 65536,
    gpu: 0,
  },
  editCluster: {
    name: 'production-eu',
    region: 'eu-west-3',
    cloud_provider: 'AWS',
    memory: 131072,
    is_default: true,
  },
  editClusterAdvancedSettings: {
    'database.redis.allowed_cidrs': ['10.0.0.0/8'],
    'registry.image_retention_time': 2592000,
  },

  createContainerRegistry: {
    name: 'Docker Hub',
    kind: 'DOCKER_HUB',
    description: 'Public and private images of the acme account',
    config: { username: 'acme-ci', password: 'docker-hub-access-token' },
  },
  editContainerRegistry: {
    name: 'Docker Hub',
    kind: 'DOCKER_HUB',
    config: { password: 'rotated-docker-hub-access-token' },
  },

  createGitToken: {
    name: 'GitHub acme',
    description: 'Read access to the private repositories of the acme organization',
    type: 'GITHUB',
    token: 'your-github-fine-grained-token',
    expired_at: '2027-06-30T00:00:00Z',
  },
  editGitToken: {
    name: 'GitHub acme',
    type: 'GITHUB',
    token: 'your-rotated-github-token',
    expired_at: '2027-12-31T00:00:00Z',
  },

  createProject: { name: 'Shop', description: 'The storefront, its API and their databases' },
  editProject: { name: 'Online shop' },

  createEnvironment: { name: 'staging', mode: 'STAGING', auto_preview: true },
  editEnvironment: { name: 'preprod', auto_preview: false },
  cloneEnvironment: { name: 'staging-hotfix', mode: 'PREVIEW' },

  createDeploymentRule: {
    name: 'Office hours',
    description: 'Development environments run on working days only',
    mode: 'DEVELOPMENT',
    cluster_id: EXAMPLE_IDS.cluster,
    timezone: 'Europe/Paris',
    start_time: '08:00',
    stop_time: '19:30',
    weekdays: OFFICE_DAYS,
    auto_stop: true,
    wildcard: 'dev-*',
  },
  editProjectDeployemtnRule: {
    name: 'Extended office hours',
    mode: 'DEVELOPMENT',
    cluster_id: EXAMPLE_IDS.cluster,
    timezone: 'Europe/Paris',
    start_time: '07:00',
    stop_time: '21:00',
    weekdays: [...OFFICE_DAYS, 'SATURDAY'],
  },
  updateDeploymentRulesPriorityOrder: {
    project_deployment_rule_ids_in_order: [EXAMPLE_IDS.deploymentRule, EXAMPLE_IDS.otherDeploymentRule],
  },
  editEnvironmentDeploymentRule: {
    timezone: 'America/New_York',
    start_time: '07:00',
    stop_time: '18:00',
    weekdays: OFFICE_DAYS,
    auto_stop: true,
    auto_preview: true,
  },

  createOrganizationAnnotationsGroup: {
    name: 'monitoring',
    annotations: [{ key: 'prometheus.io/scrape', value: 'true' }, { key: 'prometheus.io/port', value: '9090' }],
    scopes: ['DEPLOYMENTS', 'PODS'],
  },
  editOrganizationAnnotationsGroup: {
    name: 'monitoring',
    annotations: [{ key: 'prometheus.io/scrape', value: 'true' }, { key: 'prometheus.io/port', value: '9090' }],
    scopes: ['DEPLOYMENTS', 'PODS', 'SERVICES'],
  },
  createOrganizationLabelsGroup: {
    name: 'team',
    labels: [{ key: 'team', value: 'payments' }, { key: 'cost-center', value: 'cc-42', propagate_to_cloud_provider: true }],
  },
  editOrganizationLabelsGroup: {
    name: 'team',
    labels: [{ key: 'team', value: 'checkout' }, { key: 'cost-center', value: 'cc-42', propagate_to_cloud_provider: true }],
  },
});
