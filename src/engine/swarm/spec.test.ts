import { test } from 'node:test';
import assert from 'node:assert/strict';
import { healthcheckOf, jobSpec, serviceSpec, swarmServiceName } from './spec.ts';
import { serviceSettings } from '../settings.ts';
import type { RuntimePlan } from '../plan.ts';

const ids = { serviceId: '0a1b2c3d-0000-4000-8000-000000000001', environmentId: 'e', projectId: 'p', organizationId: 'o' };
const plan: RuntimePlan = {
  source: null, env: { A: '1' }, files: [], cpuMilli: 250, memoryMiB: 64, replicas: 3, ports: [{ internalPort: 8080, publiclyAccessible: true, isDefault: true, name: null }],
  readiness: null, liveness: null, entrypoint: null, args: [], volumes: [], aliases: ['other-name'], database: null, job: null,
};
const base = { name: 'berth-web-0a1b2c3d', ids, slug: 'web', generation: 'g1', image: 'img:1', plan, network: 'berth-env-e', routes: [], readiness: null, settings: serviceSettings({}), replicas: 3, pinned: false, files: [] };

test('a stateless service: dnsrr, host-mode ports, spread, reservations = limits, start-first with rollback, init', () => {
  const spec = serviceSpec(base) as any;
  assert.equal(swarmServiceName('web', ids.serviceId), 'berth-web-0a1b2c3d');
  assert.deepEqual(spec.EndpointSpec, { Mode: 'dnsrr', Ports: [{ Protocol: 'tcp', TargetPort: 8080, PublishMode: 'host' }] });
  assert.deepEqual(spec.TaskTemplate.Placement, { Constraints: [], Preferences: [{ Spread: { SpreadDescriptor: 'node.id' } }] });
  assert.deepEqual(spec.TaskTemplate.Resources.Limits, { NanoCPUs: 250_000_000, MemoryBytes: 64 * 1024 * 1024 });
  assert.deepEqual(spec.TaskTemplate.Resources.Reservations, spec.TaskTemplate.Resources.Limits);
  assert.equal(spec.UpdateConfig.Order, 'start-first');
  assert.equal(spec.UpdateConfig.FailureAction, 'rollback');
  assert.equal(spec.TaskTemplate.ContainerSpec.Init, true);
  assert.deepEqual(spec.TaskTemplate.Networks, [{ Target: 'berth-env-e', Aliases: ['web', 'other-name'] }]);
  assert.deepEqual(spec.Mode, { Replicated: { Replicas: 3 } });
});

test('a service holding a volume is pinned by node label and updated stop-first; Recreate is stop-first too', () => {
  const pinned = serviceSpec({ ...base, pinned: true, plan: { ...plan, volumes: [{ key: 'data', mountPoint: '/data' }] } }) as any;
  assert.deepEqual(pinned.TaskTemplate.Placement.Constraints, [`node.labels.berth.volume.${ids.serviceId}==true`]);
  assert.equal(pinned.UpdateConfig.Order, 'stop-first');
  assert.equal(pinned.TaskTemplate.ContainerSpec.Mounts[0].Target, '/data');
  const recreate = serviceSpec({ ...base, settings: serviceSettings({ 'deployment.update_strategy.type': 'Recreate' }) }) as any;
  assert.equal(recreate.UpdateConfig.Order, 'stop-first');
});

test('healthchecks from readiness probes: exec as is, TCP and HTTP through what the image has', () => {
  const timing = { initialDelaySeconds: 2, periodSeconds: 1, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 3 };
  assert.deepEqual(healthcheckOf({ kind: 'exec', port: null, path: '/', command: ['check'], ...timing })!.Test, ['CMD', 'check']);
  const tcp = healthcheckOf({ kind: 'tcp', port: 5432, path: '/', command: [], ...timing })!;
  assert.match((tcp.Test as string[])[1]!, /nc .*127\.0\.0\.1 5432/);
  assert.deepEqual([tcp.Interval, tcp.Retries, tcp.StartPeriod], [1e9, 3, 2e9]);
  const http = healthcheckOf({ kind: 'http', port: 80, path: 'ready', command: [], ...timing })!;
  assert.match((http.Test as string[])[1]!, /http:\/\/127\.0\.0\.1:80\/ready/);
  assert.equal(healthcheckOf(null), undefined);
});

test('a job run is a replicated-job with one completion, restarted on failure up to max_nb_restart, no healthcheck', () => {
  const spec = jobSpec({ ...base, command: ['-c', 'echo hi'], entrypoint: 'sh', runId: 'r1', maxRestarts: 2 }) as any;
  assert.deepEqual(spec.Mode, { ReplicatedJob: { MaxConcurrent: 1, TotalCompletions: 1 } });
  assert.deepEqual(spec.TaskTemplate.RestartPolicy, { Condition: 'on-failure', MaxAttempts: 2, Delay: 1e9 });
  assert.deepEqual([spec.TaskTemplate.ContainerSpec.Command, spec.TaskTemplate.ContainerSpec.Args], [['sh'], ['-c', 'echo hi']]);
  assert.equal(spec.TaskTemplate.ContainerSpec.Healthcheck, undefined);
  assert.equal(spec.TaskTemplate.ContainerSpec.Labels['berth.role'], 'job-run');
});
