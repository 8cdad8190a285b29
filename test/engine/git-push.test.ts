// Deploy on push on the real Docker engine: an application tracking a branch of a git server on
// loopback (git daemon, pushes over git://) runs v1; a developer pushes a commit changing what it
// serves; within the poll interval berth deploys that commit, once, and the application answers
// at its URL with the new content. The deployment's log starts with the commit and the clone
// names its author and message. A private repository (basic auth) is cloned with the git token
// its application names: the token is in no log line, API answer, container or image.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { busyboxImage, NO_DOCKER, testDocker } from '../support/docker.ts';
import { hostOf, removeEnvironment, startEngineBerth, viaIngress, type EngineBerth } from '../support/engine-berth.ts';
import { startGitDaemon, type GitDaemon } from '../support/git-daemon.ts';
import { startPrivateGitServer } from '../support/git-http-server.ts';
import { eventually } from '../support/harness.ts';

const found = await testDocker();

describe('docker engine: a push deploys', { skip: found ? false : NO_DOCKER, timeout: 600_000 }, () => {
  let berth: EngineBerth;
  let gitd: GitDaemon;
  let envId: string;
  let org: string;
  let base: string;
  const docker = found?.docker!;

  before(async () => {
    base = await busyboxImage(docker);
    gitd = await startGitDaemon();
    await gitd.createRepo('site', {
      Dockerfile: `FROM ${base}\nCOPY index.html /www/index.html\nCMD ["httpd", "-f", "-p", "8080", "-h", "/www"]\n`,
      'index.html': 'served v1\n',
    });
    berth = await startEngineBerth(found!.host, { GIT_POLL_INTERVAL_SECONDS: '1' });
    org = (await berth.api('GET', '/organization')).body.results[0].id;
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

  test('a private repository is cloned with its git token, which no log, answer, container or image holds', async () => {
    const token = 'ghp_privateEngine7c1d2e3f';
    const server = await startPrivateGitServer(token);
    try {
      const { url } = await server.createRepo('private-site', {
        Dockerfile: `FROM ${base}\nCOPY . /www\nCMD ["httpd", "-f", "-p", "8080", "-h", "/www"]\n`,
        'index.html': 'private v1\n',
      });
      const gitToken = await berth.api('POST', `/organization/${org}/gitToken`, { name: 'private-site', type: 'GITHUB', token });
      assert.equal(gitToken.status, 201, JSON.stringify(gitToken.body));
      const created = await berth.api('POST', `/environment/${envId}/application`, {
        name: 'private-site', git_repository: { url, branch: 'main', git_token_id: gitToken.body.id }, auto_deploy: false,
        ports: [{ internal_port: 8080, publicly_accessible: true }], cpu: 250, memory: 64,
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const deployment = (await berth.api('POST', `/application/${created.body.id}/deploy`)).body;
      const done = await berth.settle(deployment.id);
      assert.equal(done.status, 'DEPLOYED', done.message);
      assert.deepEqual(server.usernames.slice(-1), ['x-access-token'], 'authenticated with the token');
      const link = (await berth.api('GET', `/application/${created.body.id}/link`)).body.results[0];
      assert.deepEqual(await viaIngress(berth.ingressPort, hostOf(link.url)), { status: 200, body: 'private v1\n' });

      const basic = Buffer.from(`x-access-token:${token}`).toString('base64');
      const leaks = (text: string) => text.includes(token) || text.includes(basic);
      const log = await berth.api('GET', `/deployment/${deployment.id}/log?page_size=1000`);
      assert.ok(!leaks(JSON.stringify(log.body)), 'not in the deployment log');
      for (const path of [`/application/${created.body.id}`, `/organization/${org}/gitToken/${gitToken.body.id}`, `/deployment/${deployment.id}`]) {
        assert.ok(!leaks(JSON.stringify((await berth.api('GET', path)).body)), path);
      }
      const containers = await docker.listContainers({ all: true, filters: { label: [`berth.service_id=${created.body.id}`] } });
      assert.ok(containers.length > 0);
      for (const c of containers) {
        const inspected = await docker.getContainer(c.Id).inspect();
        assert.ok(!leaks(JSON.stringify(inspected)), 'not in docker inspect of the container');
        const image = await docker.getImage(inspected.Image).inspect();
        assert.ok(!leaks(JSON.stringify(image)), 'not in the image');
        assert.ok(!leaks(JSON.stringify(await docker.getImage(inspected.Image).history())), 'not in the image history');
        // the checkout copied into the image has no credentials in its git config either
        const exec = await docker.getContainer(c.Id).exec({ Cmd: ['sh', '-c', 'cat /www/.git/config 2>/dev/null; ls -a /www'], AttachStdout: true, AttachStderr: true });
        const stream = await exec.start({ hijack: true, stdin: false });
        const out = await new Promise<string>((resolve) => { const chunks: Buffer[] = []; stream.on('data', (d: Buffer) => chunks.push(d)); stream.on('end', () => resolve(Buffer.concat(chunks).toString('latin1'))); });
        assert.ok(!leaks(out), 'not in the files the image holds');
      }
    } finally {
      await server.close();
    }
  });
});
