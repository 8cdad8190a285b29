// Structural checks of the rendered Kubernetes objects (no cluster): every object has an
// apiVersion, a kind, a DNS-1123 metadata.name and namespace; containers have resources; probes
// have exactly one handler; the kinds follow the service type and spec.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderService, type K8sObject, type RenderInput } from './render.ts';
import { toYaml } from './yaml.ts';

const DNS1123 = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const KNOWN: Record<string, string> = {
  Deployment: 'apps/v1', StatefulSet: 'apps/v1', Service: 'v1', Ingress: 'networking.k8s.io/v1', HorizontalPodAutoscaler: 'autoscaling/v2',
  CronJob: 'batch/v1', Job: 'batch/v1', Secret: 'v1', ConfigMap: 'v1',
};

function assertValidObjects(objects: K8sObject[]): void {
  for (const o of objects) {
    assert.equal(o.apiVersion, KNOWN[o.kind], `${o.kind} apiVersion`);
    assert.match(o.metadata.name, DNS1123);
    assert.ok(o.metadata.name.length <= 63);
    assert.match(o.metadata.namespace, DNS1123);
    const spec = o.spec as Record<string, any> | undefined;
    const pod = o.kind === 'CronJob' ? spec!.jobTemplate.spec.template.spec : spec?.template?.spec;
    if (pod) {
      for (const c of pod.containers) {
        assert.match(c.name, DNS1123);
        assert.match(c.resources.requests.cpu, /^\d+m$/);
        assert.match(c.resources.limits.memory, /^\d+Mi$/);
        for (const probe of [c.readinessProbe, c.livenessProbe].filter(Boolean)) {
          const handlers = ['httpGet', 'tcpSocket', 'exec', 'grpc'].filter((h) => h in probe);
          assert.equal(handlers.length, 1);
          assert.ok(probe.periodSeconds >= 1 && probe.timeoutSeconds >= 1);
        }
      }
    }
    if (o.kind === 'Deployment' || o.kind === 'StatefulSet') {
      assert.deepEqual(spec!.selector.matchLabels, Object.fromEntries(Object.entries(spec!.template.metadata.labels).filter(([k]) => k in spec!.selector.matchLabels)));
    }
  }
}

const base: RenderInput = {
  id: '0b0e7f3e-9b1c-4c43-8f6d-0a1b2c3d4e5f', type: 'APPLICATION', name: 'My Web App', slug: 'My_Web.App', environmentId: 'a1b2c3d4-0000-4000-8000-000000000000',
  spec: {}, advancedSettings: {}, variables: [],
};

test('an application with ports, probes and autoscaling: Deployment, Service, Ingress with annotations, HPA, ConfigMap, Secret', () => {
  const objects = renderService({
    ...base,
    spec: {
      cpu: 250, memory: 256, min_running_instances: 2, max_running_instances: 5,
      ports: [{ internal_port: 8080, external_port: 443, publicly_accessible: true, name: 'HTTP Main' }],
      healthchecks: { readiness_probe: { type: { http: { path: '/ready', port: 8080 } }, period_seconds: 5, timeout_seconds: 2 }, liveness_probe: { type: { tcp: { port: 8080 } } } },
    },
    advancedSettings: { 'network.ingress.proxy_body_size_mb': 8, 'network.ingress.enable_cors': true, 'hpa.cpu.average_utilization_percent': 75 },
    variables: [{ key: 'MODE', value: 'prod', is_secret: false }, { key: 'TOKEN', value: 's3cr3t', is_secret: true }],
  });
  assertValidObjects(objects);
  assert.deepEqual(objects.map((o) => o.kind), ['ConfigMap', 'Secret', 'Deployment', 'Service', 'Ingress', 'HorizontalPodAutoscaler']);
  const dep = objects.find((o) => o.kind === 'Deployment') as any;
  assert.equal(dep.spec.replicas, 2);
  assert.equal(dep.spec.template.spec.containers[0].readinessProbe.httpGet.path, '/ready');
  const ing = objects.find((o) => o.kind === 'Ingress')!;
  assert.equal(ing.metadata.annotations!['nginx.ingress.kubernetes.io/proxy-body-size'], '8m');
  assert.equal(ing.metadata.annotations!['nginx.ingress.kubernetes.io/enable-cors'], 'true');
  const hpa = objects.find((o) => o.kind === 'HorizontalPodAutoscaler') as any;
  assert.deepEqual([hpa.spec.minReplicas, hpa.spec.maxReplicas, hpa.spec.metrics[0].resource.target.averageUtilization], [2, 5, 75]);
  assert.equal((objects[1] as any).data.TOKEN, Buffer.from('s3cr3t').toString('base64'));
});

test('an empty spec renders with defaults; a database is a StatefulSet; a cron job a CronJob, a lifecycle job a Job', () => {
  const app = renderService(base);
  assertValidObjects(app);
  assert.deepEqual(app.map((o) => o.kind), ['ConfigMap', 'Secret', 'Deployment']);
  const db = renderService({ ...base, type: 'DATABASE', spec: { type: 'POSTGRESQL', version: '16', storage: 20 } });
  assertValidObjects(db);
  assert.deepEqual(db.map((o) => o.kind), ['ConfigMap', 'Secret', 'StatefulSet', 'Service']);
  assert.equal((db[2] as any).spec.template.spec.containers[0].image, 'postgresql:16');
  const cron = renderService({ ...base, type: 'JOB', spec: { image_name: 'busybox', tag: '1.36', schedule: { cronjob: { scheduled_at: '*/10 * * * *' } } } });
  assertValidObjects(cron);
  assert.equal(cron[2]!.kind, 'CronJob');
  assert.equal((cron[2] as any).spec.schedule, '*/10 * * * *');
  const job = renderService({ ...base, type: 'JOB', spec: { schedule: { on_start: {} } } });
  assert.equal(job[2]!.kind, 'Job');
});

test('the YAML emitter writes one document per object', () => {
  const yaml = toYaml(renderService(base));
  assert.equal(yaml.split('---\n').length, 3);
  assert.match(yaml, /^apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: my-web-app-config/);
});
