// Preview environments on the real Docker engine: an environment whose application (with a
// volume) tracks main of a repository on a loopback git server serves main; a pull request from
// branch `feature` is opened (the event the git webhook route passes on) and its copy is built
// from the pull request's head commit and served at its own URL while the source keeps serving
// main; the pull request closes and the copy's containers, network and volumes leave the daemon.
// berth runs in this process (startRuntime, ENGINE=docker) so the test can hand it the event.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/config.ts';
import { stopIngress } from '../../src/engine/ingress/haproxy.ts';
import { startRuntime, type Runtime } from '../../src/runtime.ts';
import { busyboxImage, NO_DOCKER, testDocker } from '../support/docker.ts';
import { hostOf, viaIngress } from '../support/engine-berth.ts';
import { startGitDaemon, type GitDaemon } from '../support/git-daemon.ts';
import { eventually } from '../support/harness.ts';
import { freePort } from '../support/processes.ts';

const found = await testDocker();

describe('docker engine: a pull request gets a preview', { skip: found ? false : NO_DOCKER, timeout: 600_000 }, () => {
  const docker = found?.docker!;
  const token = `engine-test-${randomBytes(16).toString('hex')}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'berth-engine-previews-'));
  let runtime: Runtime;
  let gitd: GitDaemon;
  let ingressPort: number;
  let orgId: string;
  let envId: string | undefined;
  let projectId: string | undefined;
  let prCommit: string;

  async function api(method: string, url: string, body?: unknown) {
    const r = await runtime.app!.inject({ method: method as 'GET', url, headers: { authorization: `Token ${token}` }, ...(body !== undefined ? { payload: body as object } : {}) });
    const parsed = r.body ? JSON.parse(r.body) : undefined;
    assert.ok(r.statusCode < 300, `${method} ${url}: ${r.statusCode} ${r.body}`);
    return parsed;
  }
  const settle = (id: string) => eventually(async () => {
    const d = await api('GET', `/deployment/${id}`);
    return d.finished ? d : null;
  }, 240_000, 300);
  const served = async (serviceId: string) => {
    const link = (await api('GET', `/application/${serviceId}/link`)).results.find((l: { is_default: boolean }) => l.is_default);
    return viaIngress(ingressPort, hostOf(link.url));
  };
  const left = async (environmentId: string) => {
    const filters = { label: [`berth.environment_id=${environmentId}`] };
    const [containers, networks, volumes] = await Promise.all([
      docker.listContainers({ all: true, filters }), docker.listNetworks({ filters }), docker.listVolumes({ filters }),
    ]);
    return { containers: containers.length, networks: networks.length, volumes: (volumes.Volumes ?? []).length };
  };

  before(async () => {
    const base = await busyboxImage(docker);
    gitd = await startGitDaemon();
    await gitd.createRepo('site', {
      Dockerfile: `FROM ${base}\nCOPY index.html /www/index.html\nCMD ["httpd", "-f", "-p", "8080", "-h", "/www"]\n`,
      'index.html': 'main branch\n',
    });
    prCommit = await gitd.push('site', { 'index.html': 'pull request 12\n' }, { branch: 'feature', message: 'Change the page' });
    ingressPort = await freePort();
    runtime = await startRuntime({
      listen: false, pollingIntervalSeconds: 0.5,
      config: loadConfig({
        ENGINE: 'docker', DOCKER_HOST: found!.host, DATA_DIR: dataDir, EMBEDDED_DATABASE: 'pglite', BOOTSTRAP_TOKEN: token, LOG_LEVEL: 'warn',
        INGRESS_PORT: String(ingressPort), GIT_POLL_INTERVAL_SECONDS: '0', SHUTDOWN_DRAIN_MS: '0', HOST: '127.0.0.1',
      }),
    });
    orgId = (await api('GET', '/organization')).results[0].id;
    projectId = (await api('POST', `/organization/${orgId}/project`, { name: `previews-${Date.now()}` })).id;
    envId = (await api('POST', `/project/${projectId}/environment`, { name: 'staging', mode: 'STAGING', auto_preview: true })).id;
  }, { timeout: 300_000 });
  after(async () => {
    if (envId) {
      await runtime?.app?.inject({ method: 'DELETE', url: `/environment/${envId}`, headers: { authorization: `Token ${token}` } });
      await eventually(async () => (await left(envId!)).containers === 0, 60_000).catch(() => {});
    }
    // what a failed test left behind (the copy included), by force
    if (projectId) {
      const filters = { label: [`berth.project_id=${projectId}`] };
      for (const c of await docker.listContainers({ all: true, filters })) await docker.getContainer(c.Id).remove({ force: true, v: true }).catch(() => {});
      for (const n of await docker.listNetworks({ filters })) await docker.getNetwork(n.Id).remove().catch(() => {});
      for (const v of (await docker.listVolumes({ filters })).Volumes ?? []) await docker.getVolume(v.Name).remove().catch(() => {});
    }
    await runtime?.stop();
    await stopIngress({ dataDir }).catch(() => {});
    await gitd?.close();
  });

  test('open: the copy serves the pull request at its own URL; close: the copy and everything it ran are gone', async () => {
    const site = await api('POST', `/environment/${envId}/application`, {
      name: 'site', git_repository: { url: `${gitd.baseUrl}/site.git`, branch: 'main' }, cpu: 250, memory: 64,
      ports: [{ internal_port: 8080, publicly_accessible: true }], storage: [{ type: 'FAST_SSD', size: 4, mount_point: '/data' }],
    });
    const first = await settle((await api('POST', `/application/${site.id}/deploy`)).id);
    assert.equal(first.status, 'DEPLOYED', first.message);
    assert.deepEqual(await served(site.id), { status: 200, body: 'main branch\n' });

    const event = {
      provider: 'GITEA' as const, number: 12, title: 'Change the page', repositoryUrls: [`${gitd.baseUrl}/site.git`],
      baseBranch: 'main', headBranch: 'feature', headCommit: prCommit, author: 'Ada Pusher', organizationId: orgId,
    };
    const [opened] = await runtime.ctx.services.previews.onPullRequest({ ...event, action: 'opened' });
    assert.equal(opened!.outcome, 'created', JSON.stringify(opened));
    const copyId = opened!.preview_environment_id!;
    const [deployment] = await Promise.all(opened!.deployment_ids.map(settle));
    assert.equal(deployment.status, 'DEPLOYED', deployment.message);
    assert.equal(deployment.git_commit_id, prCommit);
    const copySite = (await api('GET', `/environment/${copyId}/services`)).results[0];
    assert.deepEqual(await served(copySite.id), { status: 200, body: 'pull request 12\n' });
    assert.deepEqual(await served(site.id), { status: 200, body: 'main branch\n' }, 'the source keeps serving main');
    const running = await left(copyId);
    assert.ok(running.containers >= 1 && running.networks === 1 && running.volumes === 1, JSON.stringify(running));

    const [closed] = await runtime.ctx.services.previews.onPullRequest({ ...event, action: 'closed' });
    assert.equal(closed!.outcome, 'closed');
    await eventually(async () => {
      const now = await left(copyId);
      return now.containers === 0 && now.networks === 0 && now.volumes === 0;
    }, 120_000, 500);
    assert.equal((await runtime.app!.inject({ method: 'GET', url: `/environment/${copyId}`, headers: { authorization: `Token ${token}` } })).statusCode, 404);
    assert.equal((await served(site.id)).body, 'main branch\n');
    const [row] = (await api('GET', `/environment/${envId}/preview`)).results;
    assert.deepEqual([row.state, row.preview_environment_id], ['CLOSED', null]);
  });
});
