// Unit tests of the shared service rules: ports, storage, probes, git repositories, capacity,
// instances, group references, and the runtime merge (sent members change, others stay).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  checkCapacity, checkInstances, normalizeGitRepository, normalizeHealthchecks, normalizePorts, normalizeStorage, presentGitRepository,
} from './common.rules.ts';
import { mergeRuntime, runtimeDefaults } from './runtime.rules.ts';
import { sameJson } from './services.service.ts';

const CAP = { cpu: 1000, memory: 1024, gpu: 0 };

test('ports: defaults for protocol, name and external port; duplicates and misplaced public paths refused', () => {
  const [web, tcp, priv] = normalizePorts([
    { internal_port: 80, publicly_accessible: true },
    { internal_port: 5432, publicly_accessible: true, protocol: 'TCP' },
    { internal_port: 9000, publicly_accessible: false },
  ]);
  assert.deepEqual([web!.protocol, web!.name, web!.external_port, web!.is_default], ['HTTP', 'p80', 443, false]);
  assert.equal(tcp!.external_port, 5432);
  assert.equal(priv!.external_port, null);
  const again = normalizePorts([web!]);
  assert.deepEqual(again[0], web, 'idempotent on stored ports');
  assert.throws(() => normalizePorts([{ internal_port: 80, publicly_accessible: true }, { internal_port: 80, publicly_accessible: false }]), /declared twice/);
  assert.throws(() => normalizePorts([{ internal_port: 80, publicly_accessible: false, public_path: '/api' }]), /public_path is only for publicly accessible/);
  assert.throws(() => normalizePorts([{ internal_port: 80, publicly_accessible: true, is_default: true }, { internal_port: 81, publicly_accessible: true, is_default: true }]), /at most one/);
});

test('storage: FAST_SSD by default, mount points unique', () => {
  assert.equal(normalizeStorage([{ size: 4, mount_point: '/d' }])[0]!.type, 'FAST_SSD');
  assert.throws(() => normalizeStorage([{ size: 4, mount_point: '/d' }, { size: 5, mount_point: '/d' }]), /used twice/);
});

test('probes: exactly one kind, defaults, port from the service', () => {
  const hc = normalizeHealthchecks({ readiness_probe: { type: { grpc: {} } } }, 50051);
  assert.deepEqual(hc.readiness_probe, { type: { grpc: { service: null, port: 50051 } }, initial_delay_seconds: 30, period_seconds: 10, timeout_seconds: 5, success_threshold: 1, failure_threshold: 9 });
  assert.equal(hc.liveness_probe, null);
  assert.throws(() => normalizeHealthchecks({ liveness_probe: { type: {} } }, 80), /exactly one of tcp, http, exec, grpc/);
  assert.throws(() => normalizeHealthchecks({ liveness_probe: { type: { tcp: {}, exec: { command: ['x'] } } } }, 80), /exactly one/);
  assert.throws(() => normalizeHealthchecks({ liveness_probe: { type: { http: {} } } }, null), /port is required/);
  assert.throws(() => normalizeHealthchecks({ liveness_probe: { type: { exec: { command: [''] } } } }, null), /command\[0\]/);
  assert.deepEqual(normalizeHealthchecks(hc, null), hc, 'idempotent');
});

test('git repository: defaults, provider from the host, owner/name from the path, any git transport but ext:: and ftp', () => {
  const repo = normalizeGitRepository({ url: 'https://bitbucket.org/team/sub/app.git' });
  assert.deepEqual(repo, { url: 'https://bitbucket.org/team/sub/app.git', branch: 'main', root_path: '/', git_token_id: null, provider: 'BITBUCKET' });
  assert.deepEqual([presentGitRepository(repo).owner, presentGitRepository(repo).name], ['team/sub', 'app']);
  assert.equal(normalizeGitRepository({ url: 'https://git.example.com/a/b' }).provider, null);
  assert.equal(normalizeGitRepository({ url: 'git@github.com:a/b.git' }).provider, 'GITHUB');
  assert.equal(normalizeGitRepository({ url: 'ssh://git@example.com:2222/a/b.git' }).url, 'ssh://git@example.com:2222/a/b.git');
  assert.throws(() => normalizeGitRepository({ url: 'ftp://x/a/b' }), /transport "ftp:\/\/" is not allowed/);
  assert.throws(() => normalizeGitRepository({ url: 'ext::sh -c touch% /tmp/x' }), /not allowed/);
  assert.throws(() => normalizeGitRepository({ url: 'https://x/a/b', root_path: 'src' }), /root_path must start with \//);
});

test('capacity and instances', () => {
  checkCapacity({ cpu: 1000, memory: 1024, gpu: 0 }, CAP);
  assert.throws(() => checkCapacity({ cpu: 1001, memory: 1, gpu: 0 }, CAP), /maximum of 1000 millicores/);
  assert.throws(() => checkCapacity({ cpu: 1, memory: 1025, gpu: 0 }, CAP), /maximum of 1024 MB/);
  assert.throws(() => checkCapacity({ cpu: 1, memory: 1, gpu: 1 }, CAP), /maximum of 0/);
  checkInstances(0, -1);
  checkInstances(2, 2);
  assert.throws(() => checkInstances(3, 2), /must not exceed/);
  assert.throws(() => checkInstances(0, 0), /at least 1/);
});

test('runtime merge: sent members change, omitted keep, null clears, checks run on the result', () => {
  const base = mergeRuntime(runtimeDefaults('APPLICATION', true, true), { arguments: ['a'], entrypoint: '/e', ports: [{ internal_port: 80, publicly_accessible: true }] }, CAP);
  assert.equal(base.auto_preview, true);
  const next = mergeRuntime(base, { cpu: 900, entrypoint: null, arguments: undefined }, CAP);
  assert.deepEqual([next.cpu, next.entrypoint, next.arguments, next.ports[0]!.id], [900, null, ['a'], base.ports[0]!.id]);
  assert.throws(() => mergeRuntime(base, { min_running_instances: 5 }, CAP), /must not exceed/);
  assert.throws(() => mergeRuntime(base, { memory: 2048 }, CAP), /1024 MB/);
});

test('sameJson ignores key order', () => {
  assert.ok(sameJson({ a: 1, b: { c: [1, { d: 2, e: 3 }] } }, { b: { c: [1, { e: 3, d: 2 }] }, a: 1 }));
  assert.ok(!sameJson({ a: [1, 2] }, { a: [2, 1] }));
});
