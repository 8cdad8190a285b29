// Pure renderers from a service (spec, variables, advanced settings) to the Kubernetes objects a
// real driver would apply: Deployment or StatefulSet, Service, Ingress (annotations from the
// advanced settings), HorizontalPodAutoscaler, CronJob or Job, Secret, ConfigMap. Tolerant of
// missing spec members (defaults: 500m cpu, 512 MB, 1 instance). No I/O.

export type K8sObject = Record<string, unknown> & { apiVersion: string; kind: string; metadata: { name: string; namespace: string; labels: Record<string, string>; annotations?: Record<string, string> } };

export interface RenderInput {
  id: string;
  type: string;
  name: string;
  slug: string;
  environmentId: string;
  spec: Record<string, unknown>;
  advancedSettings: Record<string, unknown>;
  variables: Array<{ key: string; value: string; is_secret: boolean; mount_path?: string | null }>;
  imageTag?: string | null;
  gitCommitId?: string | null;
}

type Any = Record<string, any>;

/** DNS-1123 label: lower-case alphanumerics and '-', starts and ends alphanumeric, ≤ 63 */
function dnsLabel(text: string, max = 63): string {
  const s = text.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+/, '').slice(0, max).replace(/-+$/, '');
  return s === '' ? 'svc' : /^[a-z]/.test(s) ? s : `s${s}`.slice(0, max);
}

function namespaceOf(environmentId: string): string {
  return `env-${environmentId.slice(0, 8)}`;
}

function num(v: unknown, fallback: number): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : fallback;
}

function setting(a: Record<string, unknown>, key: string, fallback: unknown): any {
  return Object.hasOwn(a, key) && a[key] !== undefined ? a[key] : fallback;
}

function image(input: RenderInput): string {
  const s = input.spec as Any;
  const src = s.source ?? {};
  const name = s.image_name ?? src.image?.image_name;
  const tag = input.imageTag ?? s.tag ?? src.image?.tag ?? 'latest';
  if (name) return `${name}:${tag}`;
  if (input.type === 'DATABASE') return `${String(s.type ?? 'postgresql').toLowerCase()}:${String(s.version ?? 'latest')}`;
  return `registry.berth.local/${dnsLabel(input.slug)}:${(input.gitCommitId ?? 'latest').slice(0, 40)}`;
}

function probe(p: Any | null | undefined): Any | undefined {
  if (!p || typeof p !== 'object' || !p.type) return undefined;
  const t = p.type;
  const base = {
    initialDelaySeconds: num(p.initial_delay_seconds, 30), periodSeconds: num(p.period_seconds, 10),
    timeoutSeconds: num(p.timeout_seconds, 5), successThreshold: num(p.success_threshold, 1), failureThreshold: num(p.failure_threshold, 3),
  };
  if (t.http) return { ...base, httpGet: { path: t.http.path ?? '/', port: num(t.http.port, 80), scheme: t.http.scheme ?? 'HTTP' } };
  if (t.tcp) return { ...base, tcpSocket: { port: num(t.tcp.port, 80), ...(t.tcp.host ? { host: t.tcp.host } : {}) } };
  if (t.exec) return { ...base, exec: { command: t.exec.command ?? [] } };
  if (t.grpc) return { ...base, grpc: { port: num(t.grpc.port, 80), ...(t.grpc.service ? { service: t.grpc.service } : {}) } };
  return undefined;
}

function ingressAnnotations(a: Record<string, unknown>): Record<string, string> {
  const n = 'nginx.ingress.kubernetes.io/';
  const out: Record<string, string> = {
    [`${n}proxy-body-size`]: `${setting(a, 'network.ingress.proxy_body_size_mb', 100)}m`,
    [`${n}force-ssl-redirect`]: String(setting(a, 'network.ingress.force_ssl_redirect', true)),
    [`${n}enable-cors`]: String(setting(a, 'network.ingress.enable_cors', false)),
    [`${n}proxy-buffer-size`]: `${setting(a, 'network.ingress.proxy_buffer_size_kb', 4)}k`,
    [`${n}proxy-connect-timeout`]: String(setting(a, 'network.ingress.proxy_connect_timeout_seconds', 60)),
    [`${n}proxy-send-timeout`]: String(setting(a, 'network.ingress.proxy_send_timeout_seconds', 60)),
    [`${n}proxy-read-timeout`]: String(setting(a, 'network.ingress.proxy_read_timeout_seconds', 60)),
    [`${n}proxy-buffering`]: String(setting(a, 'network.ingress.proxy_buffering', 'on')),
    [`${n}whitelist-source-range`]: String(setting(a, 'network.ingress.whitelist_source_range', '0.0.0.0/0')),
  };
  if (out[`${n}enable-cors`] === 'true') {
    out[`${n}cors-allow-origin`] = String(setting(a, 'network.ingress.cors_allow_origin', '*'));
    out[`${n}cors-allow-methods`] = String(setting(a, 'network.ingress.cors_allow_methods', 'GET, PUT, POST, DELETE, PATCH, OPTIONS'));
  }
  const deny = setting(a, 'network.ingress.denylist_source_range', '');
  if (typeof deny === 'string' && deny !== '') out[`${n}denylist-source-range`] = deny;
  if (setting(a, 'network.ingress.enable_sticky_session', false) === true) out[`${n}affinity`] = 'cookie';
  return out;
}

export function renderService(input: RenderInput): K8sObject[] {
  const s = input.spec as Any;
  const a = input.advancedSettings ?? {};
  const name = dnsLabel(input.slug || input.name);
  const namespace = namespaceOf(input.environmentId);
  const labels = { 'app.kubernetes.io/name': name, 'app.kubernetes.io/managed-by': 'berth', 'berth.dev/service-id': input.id };
  const meta = (suffix = '', extra: Record<string, unknown> = {}) => ({ name: dnsLabel(suffix ? `${name}-${suffix}` : name), namespace, labels: { ...labels }, ...extra });
  const out: K8sObject[] = [];
  const plain = input.variables.filter((v) => !v.is_secret);
  const secret = input.variables.filter((v) => v.is_secret);
  out.push({ apiVersion: 'v1', kind: 'ConfigMap', metadata: meta('config'), data: Object.fromEntries(plain.map((v) => [v.key, v.value])) });
  out.push({ apiVersion: 'v1', kind: 'Secret', metadata: meta('secrets'), type: 'Opaque',
    data: Object.fromEntries(secret.map((v) => [v.key, Buffer.from(v.value).toString('base64')])) });
  const cpu = num(s.cpu ?? s.cpu_in_milli, 500);
  const memory = num(s.memory ?? s.memory_in_mb, 512);
  const ports: Any[] = Array.isArray(s.ports) ? s.ports : [];
  const container: Any = {
    name,
    image: image(input),
    envFrom: [{ configMapRef: { name: `${name}-config` } }, { secretRef: { name: `${name}-secrets` } }],
    resources: { requests: { cpu: `${cpu}m`, memory: `${memory}Mi` }, limits: { cpu: `${cpu}m`, memory: `${memory}Mi` } },
    ports: ports.map((p, i) => ({ name: dnsLabel(p.name ?? `p${p.internal_port ?? i}`, 15), containerPort: num(p.internal_port, 80), protocol: 'TCP' })),
  };
  const readiness = probe(s.healthchecks?.readiness_probe);
  const liveness = probe(s.healthchecks?.liveness_probe);
  if (readiness) container.readinessProbe = readiness;
  if (liveness) container.livenessProbe = liveness;
  if (Array.isArray(s.arguments) && s.arguments.length > 0) container.args = s.arguments;
  if (typeof s.entrypoint === 'string' && s.entrypoint !== '') container.command = [s.entrypoint];
  const podSpec: Any = {
    containers: [container],
    terminationGracePeriodSeconds: num(setting(a, 'deployment.termination_grace_period_seconds', 60), 60),
    securityContext: { readOnlyRootFilesystem: setting(a, 'security.read_only_root_filesystem', false) === true },
  };
  const template = { metadata: { labels: { ...labels } }, spec: podSpec };
  const selector = { matchLabels: { 'app.kubernetes.io/name': name } };

  if (input.type === 'JOB') {
    const cron = s.schedule?.cronjob;
    podSpec.restartPolicy = 'Never';
    const jobSpec = { backoffLimit: num(s.max_nb_restart, 0), activeDeadlineSeconds: num(s.max_duration_seconds, 300), template };
    if (cron?.scheduled_at) {
      out.push({ apiVersion: 'batch/v1', kind: 'CronJob', metadata: meta(), spec: { schedule: cron.scheduled_at, timeZone: cron.timezone ?? 'Etc/UTC', concurrencyPolicy: 'Forbid', jobTemplate: { spec: jobSpec } } });
    } else {
      out.push({ apiVersion: 'batch/v1', kind: 'Job', metadata: meta(), spec: jobSpec });
    }
    return out;
  }

  const min = num(s.min_running_instances, 1);
  const max = Math.max(min, num(s.max_running_instances, min));
  const storage: Any[] = Array.isArray(s.storage) ? s.storage : [];
  if (input.type === 'DATABASE') {
    const dbPort = num(s.port, String(s.type).toUpperCase() === 'MYSQL' ? 3306 : String(s.type).toUpperCase() === 'MONGODB' ? 27017 : String(s.type).toUpperCase() === 'REDIS' ? 6379 : 5432);
    container.ports = [{ name: 'db', containerPort: dbPort, protocol: 'TCP' }];
    container.volumeMounts = [{ name: 'data', mountPath: '/var/lib/data' }];
    out.push({ apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: meta(), spec: {
      serviceName: name, replicas: 1, selector, template,
      volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: `${num(s.storage, 10)}Gi` } } } }],
    } });
    out.push({ apiVersion: 'v1', kind: 'Service', metadata: meta(), spec: { selector: selector.matchLabels, ports: [{ name: 'db', port: dbPort, targetPort: dbPort, protocol: 'TCP' }] } });
    return out;
  }

  if (storage.length > 0) {
    container.volumeMounts = storage.map((v, i) => ({ name: `data-${i}`, mountPath: String(v.mount_point ?? `/data${i}`) }));
    out.push({ apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: meta(), spec: {
      serviceName: name, replicas: min, selector, template,
      volumeClaimTemplates: storage.map((v, i) => ({ metadata: { name: `data-${i}` }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: `${num(v.size, 10)}Gi` } } } })),
    } });
  } else {
    const strategy = setting(a, 'deployment.update_strategy.type', 'RollingUpdate');
    out.push({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: meta(), spec: {
      replicas: min, selector, template,
      strategy: strategy === 'Recreate' ? { type: 'Recreate' } : { type: 'RollingUpdate', rollingUpdate: {
        maxUnavailable: `${setting(a, 'deployment.update_strategy.rolling_update.max_unavailable_percent', 25)}%`,
        maxSurge: `${setting(a, 'deployment.update_strategy.rolling_update.max_surge_percent', 25)}%` } },
    } });
  }
  if (ports.length > 0) {
    out.push({ apiVersion: 'v1', kind: 'Service', metadata: meta(), spec: {
      selector: selector.matchLabels,
      ports: ports.map((p, i) => ({ name: dnsLabel(p.name ?? `p${p.internal_port ?? i}`, 15), port: num(p.external_port ?? p.internal_port, 80), targetPort: num(p.internal_port, 80), protocol: 'TCP' })),
    } });
    const open = ports.filter((p) => p.publicly_accessible === true);
    if (open.length > 0) {
      out.push({ apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: meta('', { annotations: ingressAnnotations(a) }), spec: {
        ingressClassName: 'nginx',
        rules: [{ host: `${name}-${namespace}.berth.local`, http: { paths: open.map((p) => ({
          path: typeof p.public_path === 'string' && p.public_path !== '' ? p.public_path : '/', pathType: 'Prefix',
          backend: { service: { name, port: { number: num(p.external_port ?? p.internal_port, 80) } } },
        })) } }],
      } });
    }
  }
  if (max > min) {
    const metrics: Any[] = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: num(setting(a, 'hpa.cpu.average_utilization_percent', 60), 60) } } }];
    const memPct = setting(a, 'hpa.memory.average_utilization_percent', null);
    if (typeof memPct === 'number') metrics.push({ type: 'Resource', resource: { name: 'memory', target: { type: 'Utilization', averageUtilization: memPct } } });
    out.push({ apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: meta(), spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: storage.length > 0 ? 'StatefulSet' : 'Deployment', name }, minReplicas: Math.max(1, min), maxReplicas: max, metrics,
    } });
  }
  return out;
}
