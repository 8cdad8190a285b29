import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../config/config.ts';
import { selectEngine } from '../select.ts';
import { dockerIsLocal } from './haproxy-container.ts';
import { chooseLauncher, type LauncherFacts } from './launcher-choice.ts';

const local = 'unix:///var/run/docker.sock';
const facts = (f: Partial<LauncherFacts>): LauncherFacts => ({ haproxyBin: undefined, binary: null, dockerHost: local, dockerAnswers: true, ...f });
const configError = (pattern: RegExp) => (err: Error) => err instanceof ConfigError && pattern.test(err.message) && !err.message.includes('\n');

test('auto: the host binary when installed, else the container when a local daemon answers, else none with the reason', () => {
  assert.deepEqual(chooseLauncher('auto', facts({ binary: '/usr/sbin/haproxy' })), { runtime: 'host', binary: '/usr/sbin/haproxy' });
  assert.deepEqual(chooseLauncher('auto', facts({})), { runtime: 'container' });
  const none = chooseLauncher('auto', facts({ dockerAnswers: false }));
  assert.equal(none.runtime, null);
  assert.match((none as { reason: string }).reason, /^haproxy is not installed .*no Docker daemon answers/);
  const remote = chooseLauncher('auto', facts({ dockerHost: 'tcp://10.0.0.5:2375' }));
  assert.match((remote as { reason: string }).reason, /DOCKER_HOST=tcp:\/\/10\.0\.0\.5:2375 is not on this machine/);
  const rootless = chooseLauncher('auto', facts({ dockerRootless: true }));
  assert.match((rootless as { reason: string }).reason, /is rootless \(its host network is not this machine's\)/);
});

test('auto with HAPROXY_BIN set: that binary, or none (berth does not quietly run a container instead)', () => {
  assert.deepEqual(chooseLauncher('auto', facts({ haproxyBin: '/opt/haproxy', binary: '/opt/haproxy' })), { runtime: 'host', binary: '/opt/haproxy' });
  const missing = chooseLauncher('auto', facts({ haproxyBin: '/nonexistent/haproxy' }));
  assert.equal(missing.runtime, null);
  assert.match((missing as { reason: string }).reason, /^haproxy is not installed \(HAPROXY_BIN=\/nonexistent\/haproxy is not an executable/);
});

test('host and container are taken as said, or a ConfigError naming what is missing', () => {
  assert.deepEqual(chooseLauncher('host', facts({ binary: '/usr/sbin/haproxy' })), { runtime: 'host', binary: '/usr/sbin/haproxy' });
  assert.deepEqual(chooseLauncher('container', facts({ binary: '/usr/sbin/haproxy' })), { runtime: 'container' }, 'container even with a host binary');
  assert.throws(() => chooseLauncher('host', facts({})), configError(/^INGRESS_RUNTIME=host but no haproxy binary is installed \(none on PATH or in \/usr\/sbin\)/));
  assert.throws(() => chooseLauncher('host', facts({ haproxyBin: '/x/haproxy' })), configError(/HAPROXY_BIN=\/x\/haproxy is not an executable/));
  assert.throws(() => chooseLauncher('container', facts({ dockerAnswers: false })), configError(/^INGRESS_RUNTIME=container but no Docker daemon answers at DOCKER_HOST=unix:\/\/\/var\/run\/docker\.sock/));
  assert.throws(() => chooseLauncher('container', facts({ dockerHost: 'tcp://docker.example:2375' })), configError(/needs the Docker daemon of this machine/));
  assert.throws(() => chooseLauncher('container', facts({ dockerRootless: true })), configError(/needs the Docker daemon of this machine .* is rootless/));
});

test('a daemon is local when reached by a unix socket or on loopback', () => {
  for (const h of ['unix:///var/run/docker.sock', '/run/docker.sock', 'tcp://127.0.0.1:2375', 'tcp://localhost:2375', 'tcp://[::1]:2375']) assert.ok(dockerIsLocal(h), h);
  for (const h of ['tcp://10.1.2.3:2375', 'tcp://docker.example:2376']) assert.ok(!dockerIsLocal(h), h);
});

test('INGRESS_RUNTIME and INGRESS_IMAGE are parsed; a bad runtime names the variable', () => {
  const config = loadConfig({});
  assert.equal(config.ingressRuntime, 'auto');
  assert.equal(config.ingressImage, 'haproxy:2.6.12');
  assert.equal(loadConfig({ INGRESS_RUNTIME: 'container', INGRESS_IMAGE: 'haproxy:2.6' }).ingressImage, 'haproxy:2.6');
  assert.throws(() => loadConfig({ INGRESS_RUNTIME: 'podman' }), configError(/^INGRESS_RUNTIME must be one of auto, host, container/));
});

test('INGRESS_RUNTIME=container with no daemon answering stops the start, also under ENGINE=auto', async () => {
  const nowhere = 'unix:///nonexistent/berth-test/docker.sock';
  await assert.rejects(selectEngine(loadConfig({ ENGINE: 'auto', DOCKER_HOST: nowhere, INGRESS_RUNTIME: 'container' }), { info() {}, warn() {} }),
    configError(/^INGRESS_RUNTIME=container but no Docker daemon answers at DOCKER_HOST=unix:\/\/\/nonexistent/));
});
