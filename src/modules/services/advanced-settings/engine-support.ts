// Which engine applies which advanced setting (issue 30, decision 0336): one row per catalogue
// key. `true`: the engine applies it (at the next deployment; ingress keys at once); a string: it
// does not, and why. The simulated engine runs nothing, so it applies none. This table is what the
// advanced-settings answers report (the keys the running engine does not apply), what the console
// and `berth` show, and what `npm run docs:settings` turns into docs/advanced-settings.md.
import type { AnyAdvancedSettingKey } from './catalogue.ts';

export type SettingsEngine = 'docker' | 'swarm' | 'simulated';

type Support = true | string;

const KUBERNETES = 'Kubernetes only: the docker engine runs every replica on its one host';
const SERVICE_ACCOUNT = 'Kubernetes only: a service account is a Kubernetes identity; the docker engine has none';
const GATEWAY = 'Kubernetes Gateway API only: the docker engine\'s ingress is HAProxy (see the network.ingress.* keys)';
const GRPC = 'the ingress forwards HTTP/1.1 to the replicas: gRPC (HTTP/2 to the upstream) is not proxied, so there is no gRPC timeout to set';

const DOCKER: Record<AnyAdvancedSettingKey, Support> = {
  'deployment.custom_domain_check_enabled': 'custom domains are not served by the docker engine\'s ingress yet',
  'deployment.termination_grace_period_seconds': true,
  'deployment.affinity.node.required': KUBERNETES,
  'deployment.antiaffinity.pod': KUBERNETES,
  'deployment.topology_spread.zone': KUBERNETES,
  'deployment.lifecycle.post_start_exec_command': true,
  'deployment.lifecycle.pre_stop_exec_command': true,
  'deployment.update_strategy.type': true,
  'deployment.update_strategy.rolling_update.max_unavailable_percent': true,
  'deployment.update_strategy.rolling_update.max_surge_percent': true,
  'build.timeout_max_sec': true,
  'build.cpu_max_in_milli': true,
  'build.ram_max_in_gib': true,
  'build.disable_buildkit_cache': true,
  'build.skip_git_submodules': true,
  'build.ephemeral_storage_in_gib': 'the docker engine builds on the host\'s disk: there is no ephemeral-storage quota to set',
  'network.ingress.proxy_body_size_mb': true,
  'network.ingress.force_ssl_redirect': 'berth\'s ingress serves plain HTTP and offloads no TLS: there is no HTTPS to redirect to (a TLS terminator in front of it redirects)',
  'network.ingress.enable_cors': true,
  'network.ingress.cors_allow_origin': true,
  'network.ingress.cors_allow_methods': true,
  'network.ingress.cors_allow_headers': true,
  'network.ingress.proxy_buffer_size_kb': 'HAProxy reads response headers into one buffer size for the whole proxy (tune.bufsize, 16 kB), not per service: headers up to about 15 kB pass whatever this says',
  'network.ingress.keepalive_time_seconds': 'HAProxy limits how long a connection to a replica stays idle (keepalive_timeout_seconds), not how long it is reused',
  'network.ingress.keepalive_timeout_seconds': true,
  'network.ingress.send_timeout_seconds': 'the client-side inactivity limit (timeout client, 1 h) belongs to the ingress\'s one frontend: HAProxy 2.6 cannot set it per service',
  'network.ingress.proxy_connect_timeout_seconds': true,
  'network.ingress.proxy_send_timeout_seconds': true,
  'network.ingress.proxy_read_timeout_seconds': true,
  'network.ingress.proxy_buffering': 'HAProxy always streams responses to the client as they arrive (nginx\'s proxy_buffering off): it has no response buffering to turn on',
  'network.ingress.proxy_request_buffering': true,
  'network.ingress.whitelist_source_range': true,
  'network.ingress.denylist_source_range': true,
  'network.ingress.basic_auth_env_var': true,
  'network.ingress.enable_sticky_session': true,
  'network.ingress.grpc_send_timeout_seconds': GRPC,
  'network.ingress.grpc_read_timeout_seconds': GRPC,
  'network.ingress.extra_headers': true,
  'network.gateway_api.http_request_timeout_seconds': GATEWAY,
  'network.gateway_api.http_connection_idle_timeout_seconds': GATEWAY,
  'network.gateway_api.retry.num_retries': GATEWAY,
  'network.gateway_api.retry.retry_on': GATEWAY,
  'network.gateway_api.retry.http_status_codes': GATEWAY,
  'network.gateway_api.retry.per_try_timeout_seconds': GATEWAY,
  'hpa.cpu.average_utilization_percent': true,
  'hpa.memory.average_utilization_percent': true,
  'job.delete_ttl_seconds_after_finished': true,
  'cronjob.concurrency_policy': true,
  'cronjob.failed_jobs_history_limit': true,
  'cronjob.success_jobs_history_limit': true,
  'security.service_account_name': SERVICE_ACCOUNT,
  'security.automount_service_account_token': SERVICE_ACCOUNT,
  'security.read_only_root_filesystem': true,
};

const SWARM_HOOKS = 'the swarm engine runs tasks through Swarm, which has no lifecycle hooks: no command runs after start or before stop';
const SWARM_PLACEMENT = 'not mapped to Swarm placement yet: the swarm engine spreads replicas over nodes (a preference by node id)';

/** the swarm engine (decision 0343): the docker engine's builds, ingress and limits; Swarm's own update, one task at a time */
const SWARM: Record<AnyAdvancedSettingKey, Support> = {
  ...DOCKER,
  'deployment.affinity.node.required': SWARM_PLACEMENT,
  'deployment.antiaffinity.pod': SWARM_PLACEMENT,
  'deployment.topology_spread.zone': SWARM_PLACEMENT,
  'deployment.lifecycle.post_start_exec_command': SWARM_HOOKS,
  'deployment.lifecycle.pre_stop_exec_command': SWARM_HOOKS,
  'deployment.update_strategy.rolling_update.max_unavailable_percent': 'Swarm\'s rolling update replaces one task at a time (update parallelism 1), whatever the percentage',
  'deployment.update_strategy.rolling_update.max_surge_percent': 'Swarm\'s rolling update replaces one task at a time (update parallelism 1), whatever the percentage',
  'hpa.cpu.average_utilization_percent': 'the autoscaler reads one host\'s Docker stats: on Swarm, replicas stay at min_running_instances',
  'hpa.memory.average_utilization_percent': 'the autoscaler reads one host\'s Docker stats: on Swarm, replicas stay at min_running_instances',
  'job.delete_ttl_seconds_after_finished': 'a run is a Swarm job service, removed once its output is recorded',
  'cronjob.failed_jobs_history_limit': 'a run is a Swarm job service, removed once its output is recorded: nothing is kept to limit',
  'cronjob.success_jobs_history_limit': 'a run is a Swarm job service, removed once its output is recorded: nothing is kept to limit',
  'cronjob.concurrency_policy': 'Forbid is applied; Replace starts the new run beside the previous one (as Allow)',
};

const SIMULATED = 'the simulated engine runs nothing: no setting changes anything until a real engine (docker) runs the service';

/** whether `engine` applies `key`: true, or why not */
export function settingSupport(engine: SettingsEngine, key: AnyAdvancedSettingKey): Support {
  return engine === 'docker' ? DOCKER[key] : engine === 'swarm' ? SWARM[key] : SIMULATED;
}

/** of `keys` (one service kind's), those `engine` does not apply, each with why */
export function notAppliedSettings(engine: SettingsEngine, keys: readonly AnyAdvancedSettingKey[]): Array<{ key: AnyAdvancedSettingKey; reason: string }> {
  return keys.flatMap((key) => {
    const support = settingSupport(engine, key);
    return support === true ? [] : [{ key, reason: support }];
  });
}

const cell = (text: string) => text.replace(/\|/g, '\\|');

/** docs/advanced-settings.md: every key, the kinds that have it, and what each engine does with it */
export function engineSupportMarkdown(catalogue: Readonly<Record<AnyAdvancedSettingKey, { kinds: readonly string[]; meaning: string }>>): string {
  const rows = (Object.keys(catalogue) as AnyAdvancedSettingKey[]).map((key) => {
    const said = (support: Support) => (support === true ? 'applied' : `not applied: ${cell(support)}`);
    return `| \`${key}\` | ${catalogue[key].kinds.join(', ')} | ${said(settingSupport('docker', key))} | ${said(settingSupport('swarm', key))} | ${cell(catalogue[key].meaning)} |`;
  });
  return [
    '# Advanced settings: what each engine applies',
    '',
    'Generated by `npm run docs:settings` from `src/modules/services/advanced-settings/engine-support.ts`',
    '(decision 0336); `test/services/settings-support.test.ts` fails while this file is stale.',
    '',
    'A service\'s advanced settings are stored, validated and returned whatever the engine. The docker',
    'and swarm engines apply the keys marked *applied*: at the next deployment, and the `network.ingress.*`',
    'ones at once. The simulated engine runs nothing and applies none. `GET …/advancedSettings` says',
    'which keys the running engine does not apply in its `X-Berth-Settings-Not-Applied` header, and',
    '`GET …/advancedSettings/engineSupport` lists them with the reason.',
    '',
    '| key | services | docker engine | swarm engine | meaning |',
    '|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}
