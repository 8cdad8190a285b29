// Full request bodies for the create cases (every member the contract names, realistic values).
// `__NAME__` is replaced by a unique name per request.

export const JOB_BODY = {
  name: '__NAME__',
  description: 'nightly data export',
  cpu: 500,
  memory: 512,
  gpu: 0,
  ephemeral_storage_in_gib: 1,
  max_nb_restart: 0,
  max_duration_seconds: 300,
  auto_preview: false,
  port: 8080,
  healthchecks: {
    readiness_probe: {
      type: { tcp: { port: 8080, host: null } },
      initial_delay_seconds: 30, period_seconds: 10, timeout_seconds: 5, success_threshold: 1, failure_threshold: 3,
    },
    liveness_probe: {
      type: { http: { path: '/healthz', scheme: 'HTTP', port: 8080 } },
      initial_delay_seconds: 30, period_seconds: 10, timeout_seconds: 5, success_threshold: 1, failure_threshold: 3,
    },
  },
  source: {
    docker: {
      git_repository: { url: 'https://github.com/example/exporter.git', branch: 'main', root_path: '/', provider: 'GITHUB' },
      dockerfile_path: 'Dockerfile',
      docker_target_build_stage: 'runtime',
    },
  },
  schedule: { on_start: { arguments: ['--export', '--verbose'], entrypoint: '/app/run' } },
  auto_deploy: false,
  annotations_groups: [],
  labels_groups: [],
  icon_uri: 'app://qovery-console/job',
  cpu_architecture: 'AMD64',
  build_settings: {
    timeout_max_sec: 1800, cpu_max_in_milli: 2000, ram_max_in_gib: 4, ephemeral_storage_in_gib: null,
    disable_buildkit_cache: false, skip_git_submodules: false,
  },
};

export const WORKFLOW_BODY = {
  name: '__NAME__',
  description: 'triages new issues',
  webhook_ip_allowlist: ['10.0.0.0/8', '192.168.0.0/16'],
  docker_fragment: 'RUN apk add --no-cache git',
  enabled: true,
  mcp: '{"mcpServers":{}}',
  mcp_server_ids: [],
  mcp_servers: [],
  context_service_ids: [],
  outputs: [{ name: 'slack', url: 'https://hooks.example.com/T000/B000', headers: [{ name: 'x-team', value: 'platform' }], instructions: 'post a summary' }],
  model: { type: 'CLAUDE', api_key: 'sk-bench-0123456789abcdef', settings: '{"max_turns":30}' },
  project_repositories: [{ url: 'https://github.com/example/app.git', branch: 'main', git_token_id: null }],
  agent_prompt: 'Label every new issue and propose an owner.',
  governance: { host_allowlist: ['github.com', 'api.github.com'] },
  resources: { cpu_milli: 1000, ram_mib: 1024, gpu: 0, storage_gib: 0 },
  schedule: { cron_expression: '0 * * * *', timezone: 'Europe/Paris' },
  execution_mode: 'IN_PLACE',
};
