// Deploy on push on the real Docker engine: an application tracking a branch of a git server on
// loopback (git daemon, pushes over git://) runs v1; a developer pushes a commit changing what it
// serves; within the poll interval berth deploys that commit, once, and the application answers
// at its URL with the new content. The deployment's log starts with the commit and the clone
// names its author and message.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { busyboxImage, NO_DOCKER, testDocker } from '../support/docker.ts';
import { hostOf, removeEnvironment, startEngineBerth, viaIngress, type EngineBerth } from '../support/engine-berth.ts';
import { startGitDaemon, type GitDaemon } from '../support/git-daemon.ts';
import { eventually } from '../support/harness.ts';

const found = await testDocker();

describe('docker engine: a push deploys', { skip: found ? false : NO_DOCKER, timeout: 600_000 }, () => {
  let berth: EngineBerth;
  let gitd: GitDaemon;
  let envId: string;
  const docker = found?.docker!;

  before(async () => {
    const base = await busyboxImage(docker);
    gitd = await startGitDaemon();
    await gitd.createRepo('site', {
      Dockerfile: `FROM ${base}\nCOPY index.html /www/index.html\nCMD ["httpd", "-f", "-p", "8080", "-h", "/www"]\n`,
      'index.html': 'served v1\n',
    });
    berth = await startEngineBerth(found!.host, { GIT_POLL_INTERVAL_SECONDS: '1' });
    const org = (await berth.api('GET', '/organization')).body.results[0].id;
    const project = (await berth.api('POST', `/organization/${org}/project`, { name: `push-${Date.now()}` })).body;
    envId = (await berth.api('POST', `/project/${project.id}/environment`, { name: 'dev', mode: 'DEVELOPMENT' })).body.id;
  }, { timeout: 300_000 });
  after(async () => {
    await removeEnvironment(berth, docker, envId);
    await berth?.close();
    await gitd?.close();
  });

  test('a pushed commit is deployed once and served at the application\'s URL', async () => {
    const created = await berth.api('POST', `/environment/${envId}/application`, {
      name: 'site', git_repository: { url: `${gitd.baseUrl}/site.git`, branch: 'main' },
      ports: [{ internal_port: 8080, publicly_accessible: true }], cpu: 250, memory: 64,
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.auto_deploy, true);
    const appId = created.body.id;
    const first = await berth.settle((await berth.api('POST', `/application/${appId}/deploy`)).body.id);
    assert.equal(first.status, 'DEPLOYED', first.message);
    const link = (await berth.api('GET', `/application/${appId}/link`)).body.results.find((l: { is_default: boolean }) => l.is_default);
    const host = hostOf(link.url);
    assert.deepEqual(await viaIngress(berth.ingressPort, host), { status: 200, body: 'served v1\n' });
    // the poller (every second) has seen the branch's head by now: it records it, deploys nothing
    await new Promise((r) => setTimeout(r, 2500));
    const history = async () => (await berth.api('GET', `/application/${appId}/deploymentHistoryV2?page_size=100`)).body.results;
    assert.equal((await history()).length, 1);

    const commit = await gitd.push('site', { 'index.html': 'served v2\n' }, { message: 'Serve v2' });
    const pushed = await eventually(async () => (await history()).find((d: { git_commit_id: string }) => d.git_commit_id === commit), 20_000, 200);
    assert.equal(pushed.origin, 'GIT');
    const final = await berth.settle(pushed.id);
    assert.equal(final.status, 'DEPLOYED', final.message);
    await eventually(async () => (await viaIngress(berth.ingressPort, host)).body === 'served v2\n', 30_000);

    const log = (await berth.api('GET', `/deployment/${pushed.id}/log?page_size=100`)).body.results.map((l: { message: string }) => l.message);
    assert.equal(log[0], `Commit ${commit} seen on main by polling ${gitd.baseUrl}/site.git`);
    assert.ok(log.includes(`Commit ${commit} by Ada Pusher <ada@berth.invalid>: Serve v2`), log.slice(0, 12).join('\n'));
    await new Promise((r) => setTimeout(r, 2500));
    assert.equal((await history()).length, 2, 'exactly one deployment for the push');
  });
});
