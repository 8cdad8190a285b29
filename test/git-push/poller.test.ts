// The git poller against a real git server on loopback (git daemon, pushes over git://): its
// first look at a service takes what the service runs as the baseline (a commit pushed right
// after a deployment, before the first round, is deployed; a service never deployed is not); a
// pushed commit becomes one deployment of it within the poll interval; a push to another branch
// and a service with auto_deploy false change nothing; a commit the webhook, the poller and a
// replay all see deploys once; an unreachable repository backs off, and the log line names it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { createGitPoller } from '../../src/modules/git-push/git-push.poll.ts';
import { startGitPoller, type GitPollerHandle } from '../../src/workers/git-poll.ts';
import { startGitDaemon, type GitDaemon } from '../support/git-daemon.ts';
import { startPrivateGitServer } from '../support/git-http-server.ts';
import { seedEnvironment, type SeededEnvironment } from '../support/factories.ts';
import { eventually, seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';
import { pushDelivery, signed } from './fixtures.ts';

describe('git poller', () => {
  let t: TestApp;
  let org: SeededOrganization;
  let env: SeededEnvironment;
  let gitd: GitDaemon;
  let poller: GitPollerHandle;
  let secret: string;
  const lines: Array<Record<string, unknown>> = [];
  let web: string;
  let tracking: string;
  let off: string;
  let v1: string;

  before(async () => {
    t = await startTestApp();
    org = await seedOrganization(t);
    env = await seedEnvironment(t, org);
    gitd = await startGitDaemon();
    v1 = (await gitd.createRepo('web', { 'index.html': 'v1\n' })).commit;
    web = `${gitd.baseUrl}/web.git`;
    secret = (await t.request('POST', `/organization/${org.id}/gitWebhook`, { token: org.token })).body.secret;
    tracking = await application(web);
    await deployAt(tracking, v1);
    off = await application(web, { auto_deploy: false });
    const logger = pino({ level: 'info' }, new Writable({ write(chunk, _enc, done) { lines.push(JSON.parse(String(chunk))); done(); } }));
    poller = startGitPoller({ ...t.ctx, logger }, { intervalSeconds: 1, concurrency: 2, allowLocalGit: false }, [org.id]);
  });
  after(async () => {
    await poller?.stop();
    await t.close();
    await gitd?.close();
  });

  async function application(url: string, extra: Record<string, unknown> = {}): Promise<string> {
    const r = await t.request('POST', `/environment/${env.id}/application`, {
      token: org.token, body: { name: `app-${Math.random().toString(36).slice(2, 8)}`, git_repository: { url, branch: 'main' }, ...extra },
    });
    assert.equal(r.status, 201, r.raw);
    return r.body.id;
  }
  /** deploys the service at `commit` through the API, as a user (or a build that resolved it) would */
  async function deployAt(serviceId: string, commit: string, token = org.token): Promise<void> {
    const r = await t.request('POST', `/application/${serviceId}/deploy`, { token, body: { git_commit_id: commit } });
    assert.equal(r.status, 202, r.raw);
  }
  /** the deployments a push queued (origin GIT) */
  const deploymentsOf = (serviceId: string) => t.ctx.db.query<{ id: string; git_commit_id: string; origin: string; triggered_by: string }>(
    `select id, git_commit_id, origin, triggered_by from deployments where service_id = $1 and origin = 'GIT' order by position`, [serviceId]);
  const head = async (serviceId: string) => (await t.ctx.db.query<{ last_commit: string | null }>(
    'select last_commit from git_push_heads where service_id = $1', [serviceId]))[0]?.last_commit ?? null;

  test('first sight of a deployed service records the commit it runs without deploying it again', async () => {
    assert.equal(await eventually(async () => head(tracking), 10_000), v1);
    assert.equal(await head(off), null, 'auto_deploy false: not tracked');
    assert.equal((await deploymentsOf(tracking)).length, 0);
  });

  test('a commit pushed right after a deployment, before the first poll round, is deployed once', async () => {
    // its own organization and a poller driven round by round: no round runs between the two steps
    const other = await seedOrganization(t);
    const otherEnv = await seedEnvironment(t, other);
    const start = await gitd.createRepo('fresh', { 'index.html': 'fresh v1\n' });
    const created = await t.request('POST', `/environment/${otherEnv.id}/application`, {
      token: other.token, body: { name: 'fresh', git_repository: { url: start.url, branch: 'main' } },
    });
    assert.equal(created.status, 201, created.raw);
    const app = created.body.id;
    const rounds = createGitPoller(t.ctx, { intervalSeconds: 1, concurrency: 1, allowLocalGit: false }, [other.id]);
    const signal = new AbortController().signal;
    const outcomeOf = async () => (await rounds.round(signal)).outcomes.find((o) => o.service_id === app);

    const never = await outcomeOf();
    assert.equal(never?.outcome, 'skipped', 'never deployed: not deployed by the poller');
    assert.match(String(never?.reason), /never deployed/);
    assert.equal(await head(app), null, 'and the head it saw is no baseline');

    await deployAt(app, start.commit, other.token);
    const pushed = await gitd.push('fresh', { 'index.html': 'fresh v2\n' }, { message: 'Pushed ten seconds after the deploy' });
    const first = await outcomeOf();
    assert.equal(first?.outcome, 'deployed', JSON.stringify(first));
    assert.equal((await outcomeOf())?.outcome, 'already_seen');
    assert.deepEqual((await deploymentsOf(app)).map((d) => d.git_commit_id), [pushed], 'exactly one deployment of the pushed commit');
  });

  test('a pushed commit is deployed once, within the poll interval, its log starting with the commit', async () => {
    const commit = await gitd.push('web', { 'index.html': 'v2\n' }, { message: 'Serve v2' });
    const pushedAt = Date.now();
    const [d] = await eventually(async () => {
      const list = await deploymentsOf(tracking);
      return list.length > 0 ? list : null;
    }, 10_000, 50);
    assert.ok(Date.now() - pushedAt < 5_000, `deployed ${Date.now() - pushedAt} ms after the push (interval 1 s)`);
    assert.deepEqual({ ...d, id: undefined }, { id: undefined, git_commit_id: commit, origin: 'GIT', triggered_by: 'git poll' });
    const log = (await t.request('GET', `/deployment/${d!.id}/log`, { token: org.token })).body.results.map((l: { message: string }) => l.message);
    assert.equal(log[0], `Commit ${commit} seen on main by polling ${web}`);
    await poller.tick();
    await poller.tick();
    assert.equal((await deploymentsOf(tracking)).length, 1, 'later rounds do not deploy it again');
    assert.equal((await deploymentsOf(off)).length, 0, 'auto_deploy false is untouched');
  });

  test('a push to another branch deploys nothing', async () => {
    const before = (await deploymentsOf(tracking)).length;
    await gitd.push('web', { 'index.html': 'experimental\n' }, { branch: 'develop' });
    await poller.tick();
    await poller.tick();
    assert.equal((await deploymentsOf(tracking)).length, before);
  });

  test('a commit the webhook, the poller and a replay all see is deployed once', async () => {
    const before = (await deploymentsOf(tracking)).length;
    const commit = await gitd.push('web', { 'index.html': 'v3\n' }, { message: 'Serve v3' });
    // the payload names the repository by its http URL: the same repository as git://127.0.0.1:<port>/web.git
    const delivery = signed('gitea', pushDelivery('gitea', { web: web.replace(/^git:/, 'http:').replace(/\.git$/, ''), commit, pusher: 'ada' }), secret);
    const [hook] = await Promise.all([
      t.request('POST', `/gitWebhook/${org.id}/gitea`, { headers: delivery.headers, body: delivery.body }),
      poller.tick(),
    ]);
    assert.equal(hook.status, 200, hook.raw);
    assert.ok(['deployed', 'already_seen'].includes(hook.body.results[0]?.outcome), hook.raw);
    const replay = await t.request('POST', `/gitWebhook/${org.id}/gitea`, { headers: delivery.headers, body: delivery.body });
    assert.equal(replay.status, 200, replay.raw);
    await poller.tick();
    const after = (await deploymentsOf(tracking)).slice(before);
    assert.deepEqual(after.map((d) => d.git_commit_id), [commit], 'one deployment of the commit');
    assert.ok(['ada', 'git poll'].includes(after[0]!.triggered_by));
  });

  test('a private repository is polled with the git token its service names; the token is in no log line', async () => {
    const token = 'glpat-poll-5b1e9c7d';
    const server = await startPrivateGitServer(token);
    try {
      const { url, commit } = await server.createRepo('private-web', { 'index.html': 'secret v1\n' });
      const created = await t.request('POST', `/organization/${org.id}/gitToken`, { token: org.token, body: { name: `poll-${Date.now()}`, type: 'GITLAB', token } });
      assert.equal(created.status, 201, created.raw);
      const withToken = await application(url, { git_repository: { url, branch: 'main', git_token_id: created.body.id } });
      await deployAt(withToken, commit);
      assert.equal(await eventually(async () => head(withToken), 10_000), commit, 'ls-remote authenticated');
      assert.ok(server.usernames.includes('oauth2'), `GitLab's user name was sent (${server.usernames})`);
      assert.ok(!JSON.stringify(lines).includes(token), 'the token is in no log line');
      assert.equal((await t.request('DELETE', `/application/${withToken}`, { token: org.token })).status, 204);
    } finally {
      await server.close();
    }
  });

  test('an unreachable repository backs off and the log line names it', async () => {
    const gone = await application('git://127.0.0.1:9/nothing-here.git');
    const round = await poller.tick();
    assert.ok(round, 'this poller holds the lease');
    const warning = await eventually(async () => lines.find((l) => String(l.msg).startsWith('git poll: git://127.0.0.1:9/nothing-here.git (main) failed')), 10_000);
    assert.equal(warning.repository, 'git://127.0.0.1:9/nothing-here.git');
    assert.ok(Number(warning.retryInSeconds) >= 2, JSON.stringify(warning));
    const next = await poller.tick();
    assert.equal(next!.waiting, 1, 'skipped while it backs off');
    assert.equal((await deploymentsOf(gone)).length, 0);
    assert.ok(next!.checked >= 1, 'the other repository is still checked');
  });
});
