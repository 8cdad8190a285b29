// Preview environments on the real Docker engine: an environment whose application (with a
// volume) tracks main of a repository on a loopback git server serves main; a pull request from
// branch `feature` is opened (a signed GitHub pull_request delivery to the organization's git
// webhook) and its copy is built from the pull request's head commit and served at its own URL
// while the source keeps serving main; the pull request closes (merged) and the copy's
// containers, network and volumes leave the daemon. berth runs as its own process, as a user runs it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { busyboxImage, NO_DOCKER, testDocker } from '../support/docker.ts';
import { hostOf, removeEnvironment, startEngineBerth, viaIngress, type EngineBerth } from '../support/engine-berth.ts';
import { startGitDaemon, type GitDaemon } from '../support/git-daemon.ts';
import { eventually } from '../support/harness.ts';
import { otherDelivery, signed } from '../git-push/fixtures.ts';

const found = await testDocker();

describe('docker engine: a pull request gets a preview', { skip: found ? false : NO_DOCKER, timeout: 600_000 }, () => {
  const docker = found?.docker!;
  let berth: EngineBerth;
  let gitd: GitDaemon;
  let orgId: string;
  let envId: string | undefined;
  let secret: string;
  let prCommit: string;

  async function api(method: string, url: string, body?: unknown) {
    const r = await berth.api(method, url, body);
    assert.ok(r.status < 300, `${method} ${url}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  }
  /** the pull request event GitHub would send, signed with the organization's git webhook secret */
  async function pullRequest(action: 'opened' | 'closed') {
    const d = signed('github', otherDelivery('github-pr', `${gitd.baseUrl}/site`, prCommit, { action, number: 12, head: 'feature', base: 'main', merged: action === 'closed' }), secret);
    const res = await fetch(`${berth.process.url}/gitWebhook/${orgId}/github`, { method: 'POST', headers: d.headers, body: d.body });
    const receipt = await res.json() as { previews: Array<{ outcome: string; preview_environment_id: string | null; deployment_ids: string[] }> };
    assert.equal(res.status, 200, JSON.stringify(receipt));
    return receipt.previews;
  }
  const settle = (id: string) => eventually(async () => {
    const d = await api('GET', `/deployment/${id}`);
    return d.finished ? d : null;
  }, 240_000, 300);
  const served = async (serviceId: string) => {
    const link = (await api('GET', `/application/${serviceId}/link`)).results.find((l: { is_default: boolean }) => l.is_default);
    return viaIngress(berth.ingressPort, hostOf(link.url));
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
    berth = await startEngineBerth(found!.host, { GIT_POLL_INTERVAL_SECONDS: '0' });
    orgId = (await api('GET', '/organization')).results[0].id;
    secret = (await api('POST', `/organization/${orgId}/gitWebhook`)).secret;
    const projectId = (await api('POST', `/organization/${orgId}/project`, { name: `previews-${Date.now()}` })).id;
    envId = (await api('POST', `/project/${projectId}/environment`, { name: 'staging', mode: 'STAGING', auto_preview: true })).id;
  }, { timeout: 300_000 });
  after(async () => {
    if (envId) await removeEnvironment(berth, docker, envId);
    await berth?.close();
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

    const [opened] = await pullRequest('opened');
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

    const [closed] = await pullRequest('closed');
    assert.equal(closed!.outcome, 'closed');
    await eventually(async () => {
      const now = await left(copyId);
      return now.containers === 0 && now.networks === 0 && now.volumes === 0;
    }, 120_000, 500);
    assert.equal((await berth.api('GET', `/environment/${copyId}`)).status, 404);
    assert.equal((await served(site.id)).body, 'main branch\n');
    const [row] = (await api('GET', `/environment/${envId}/preview`)).results;
    assert.deepEqual([row.state, row.preview_environment_id], ['CLOSED', null]);
  });
});
