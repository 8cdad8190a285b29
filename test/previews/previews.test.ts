// Preview environments on the simulated engine: a pull request against the branch services with
// auto_preview track makes one copy (mode PREVIEW) with those services on the pull request's
// branch, everything deployed and the previewed services at the head commit (origin GIT); a
// repeated "opened" makes no second copy; new commits redeploy; closing deletes the copy through
// the environment removal path; the cap refuses the next with a message; services without
// auto_preview, of another repository or branch, or of another organization are left alone; the
// list route's shapes and refusals.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { PullRequestEvent } from '../../src/modules/previews/previews.service.ts';
import { AppError } from '../../src/lib/errors.ts';
import { expectErrorBody, seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';

const SHA1 = '1'.repeat(40);
const SHA2 = '2'.repeat(40);

describe('preview environments', () => {
  let t: TestApp;
  before(async () => { t = await startTestApp({ config: { previewMaxPerEnvironment: 2 } }); });
  after(async () => { await t.close(); });

  async function api(org: SeededOrganization, method: string, url: string, body?: unknown) {
    const r = await t.request(method, url, { token: org.token, body });
    assert.ok(r.status < 300, `${method} ${url}: ${r.status} ${r.raw}`);
    return r.body;
  }

  /** an environment (auto_preview on) with web (the repository, main), worker (same, auto_preview false), api (another repository) and a database */
  async function shop(org: SeededOrganization, repo: string) {
    const project = await api(org, 'POST', `/organization/${org.id}/project`, { name: `shop-${randomUUID().slice(0, 6)}` });
    const env = await api(org, 'POST', `/project/${project.id}/environment`, { name: 'staging', mode: 'STAGING', auto_preview: true });
    const app = (name: string, url: string, extra: object = {}) => api(org, 'POST', `/environment/${env.id}/application`, {
      name, git_repository: { url, branch: 'main' }, ports: [{ internal_port: 8080, publicly_accessible: true }], ...extra,
    });
    const web = await app('web', `${repo}.git`);
    const worker = await app('worker', repo, { auto_preview: false });
    const other = await app('api', 'https://github.com/acme/api.git');
    const db = await api(org, 'POST', `/environment/${env.id}/database`, { name: 'cache', type: 'REDIS', version: '7', mode: 'CONTAINER' });
    return { projectId: project.id as string, env, web, worker, other, db };
  }

  const pr = (org: SeededOrganization, repo: string, over: Partial<PullRequestEvent> = {}): PullRequestEvent => ({
    provider: 'GITHUB', action: 'opened', number: 7, title: 'Add login', repositoryUrls: [`${repo}.git`, repo.replace('https://github.com/', 'git@github.com:'), repo],
    baseBranch: 'main', headBranch: 'feature/login', headCommit: SHA1, author: 'octocat', organizationId: org.id, fork: false, body: null, ...over,
  });

  const previews = async (org: SeededOrganization, envId: string) => (await api(org, 'GET', `/environment/${envId}/preview`)).results;
  const servicesOf = async (org: SeededOrganization, envId: string) =>
    Object.fromEntries((await api(org, 'GET', `/environment/${envId}/services`)).results.map((s: { name: string }) => [s.name, s]));
  const history = async (org: SeededOrganization, kind: string, id: string) =>
    (await api(org, 'GET', `/${kind}/${id}/deploymentHistoryV2?page_size=100`)).results;

  test('opened: one copy of mode PREVIEW, previewed services on the branch and deployed at the head commit; repeated: no second copy', async () => {
    const org = await seedOrganization(t);
    const repo = `https://github.com/acme/shop-${randomUUID().slice(0, 6)}`;
    const s = await shop(org, repo);
    const [opened] = await t.ctx.services.previews.onPullRequest(pr(org, repo));
    assert.equal(opened!.outcome, 'created', JSON.stringify(opened));
    const copy = await api(org, 'GET', `/environment/${opened!.preview_environment_id}`);
    assert.deepEqual([copy.name, copy.mode, copy.cloned_from_id, copy.project.id], ['staging-pr-7', 'PREVIEW', s.env.id, s.projectId]);
    assert.ok(Date.parse(copy.expires_at) > Date.now() + 24 * 3600_000, 'a copy expires only after PREVIEW_TTL_HOURS without events');

    const copied = await servicesOf(org, copy.id);
    assert.deepEqual(Object.keys(copied).sort(), ['api', 'cache', 'web', 'worker']);
    const web = await api(org, 'GET', `/application/${copied.web.id}`);
    assert.deepEqual([web.git_repository.branch, web.auto_deploy], ['feature/login', false]);
    assert.equal((await api(org, 'GET', `/application/${copied.worker.id}`)).git_repository.branch, 'main', 'auto_preview false: not switched');
    assert.equal((await api(org, 'GET', `/application/${s.web.id}`)).git_repository.branch, 'main', 'the source is untouched');

    const [deployed] = await history(org, 'application', copied.web.id);
    assert.deepEqual([deployed.git_commit_id, deployed.origin, deployed.action, deployed.triggered_by], [SHA1, 'GIT', 'DEPLOY', 'octocat']);
    assert.equal(deployed.metadata.preview.pull_request_number, 7);
    const log = (await api(org, 'GET', `/deployment/${deployed.id}/log?page_size=5`)).results.map((l: { message: string }) => l.message);
    assert.deepEqual(log.slice(0, 2), ['Preview of GitHub pull request #7 "Add login" (feature/login into main)', `Commit ${SHA1} of feature/login by octocat`]);
    for (const name of ['worker', 'api']) {
      const [d] = await history(org, 'application', copied[name].id);
      assert.deepEqual([d.git_commit_id, d.origin], [null, 'GIT'], `${name}: deployed as the environment has it`);
    }
    assert.equal((await history(org, 'database', copied.cache.id)).length, 1);
    assert.equal(opened!.deployment_ids.length, 4);

    const [row] = await previews(org, s.env.id);
    assert.deepEqual(
      [row.state, row.pull_request_number, row.title, row.head_branch, row.head_commit, row.preview_environment_id, row.preview_environment_name, row.provider, row.message],
      ['OPEN', 7, 'Add login', 'feature/login', SHA1, copy.id, 'staging-pr-7', 'GITHUB', null]);

    const again = await t.ctx.services.previews.onPullRequest(pr(org, repo, { action: 'reopened' }));
    assert.deepEqual(again.map((o) => [o.outcome, o.preview_environment_id]), [['unchanged', copy.id]]);
    const envs = (await api(org, 'GET', `/project/${s.projectId}/environment`)).results.map((e: { name: string }) => e.name);
    assert.deepEqual(envs.sort(), ['staging', 'staging-pr-7']);
    assert.equal((await history(org, 'application', copied.web.id)).length, 1);

    const audit = (await api(org, 'GET', `/organization/${org.id}/events?targetType=ENVIRONMENT&subTargetType=PREVIEW`)).events;
    assert.ok(audit.some((ev: { event_type: string; origin: string }) => ev.event_type === 'CREATE' && ev.origin === 'GIT'), JSON.stringify(audit));

    // two deliveries of one event at once: one copy
    const both = await Promise.all([1, 2].map(() => t.ctx.services.previews.onPullRequest(pr(org, repo, { number: 8 }))));
    assert.deepEqual(both.map((o) => o[0]!.outcome).sort(), ['created', 'unchanged']);
    assert.equal((await previews(org, s.env.id)).length, 2);
  });

  test('synchronize redeploys the previewed services at the new commit; closed deletes the copy; an unknown close does nothing', async () => {
    const org = await seedOrganization(t);
    const repo = `https://gitlab.com/acme/shop-${randomUUID().slice(0, 6)}`;
    const s = await shop(org, repo);
    // a job built from git of the same repository and branch (its auto_preview from the environment)
    await api(org, 'POST', `/environment/${s.env.id}/job`, {
      name: 'migrate', source: { docker: { git_repository: { url: repo, branch: 'main' }, dockerfile_path: 'Dockerfile' } },
      schedule: { on_start: { arguments: ['migrate'] } },
    });
    const [opened] = await t.ctx.services.previews.onPullRequest(pr(org, repo, { provider: 'GITLAB', number: 3 }));
    const copied = await servicesOf(org, opened!.preview_environment_id!);
    const job = await api(org, 'GET', `/job/${copied.migrate.id}`);
    assert.deepEqual([job.source.docker.git_repository.branch, job.auto_deploy], ['feature/login', false]);
    assert.equal((await history(org, 'job', copied.migrate.id))[0].git_commit_id, SHA1);
    const [sync] = await t.ctx.services.previews.onPullRequest(pr(org, repo, { provider: 'GITLAB', number: 3, action: 'synchronize', headCommit: SHA2 }));
    assert.equal(sync!.outcome, 'redeployed');
    assert.equal(sync!.deployment_ids.length, 2, 'only the previewed services: web and the job');
    const [latest] = await history(org, 'application', copied.web.id);
    assert.deepEqual([sync!.deployment_ids.includes(latest.id), latest.git_commit_id, latest.origin], [true, SHA2, 'GIT']);
    assert.equal((await history(org, 'job', copied.migrate.id))[0].git_commit_id, SHA2);
    assert.equal((await history(org, 'application', copied.worker.id)).length, 1);
    assert.equal((await previews(org, s.env.id))[0].head_commit, SHA2);

    const [closed] = await t.ctx.services.previews.onPullRequest(pr(org, repo, { provider: 'GITLAB', number: 3, action: 'closed', headCommit: SHA2 }));
    assert.equal(closed!.outcome, 'closed');
    expectErrorBody(await t.request('GET', `/environment/${opened!.preview_environment_id}`, { token: org.token }), 404);
    expectErrorBody(await t.request('GET', `/application/${copied.web.id}`, { token: org.token }), 404);
    const [row] = await previews(org, s.env.id);
    assert.deepEqual([row.state, row.preview_environment_id, row.preview_environment_name], ['CLOSED', null, 'staging-pr-3']);
    assert.match(row.message, /^GitLab merge request !3 "Add login" was closed: its preview environment was deleted$/);
    assert.equal((await api(org, 'GET', `/environment/${s.env.id}`)).id, s.env.id, 'the source stays');

    assert.deepEqual((await t.ctx.services.previews.onPullRequest(pr(org, repo, { provider: 'GITLAB', number: 3, action: 'closed' }))).map((o) => o.outcome), ['ignored']);
    const unknown = await t.ctx.services.previews.onPullRequest(pr(org, repo, { number: 99, action: 'closed' }));
    assert.deepEqual(unknown.map((o) => [o.outcome, o.preview_id]), [['ignored', null]]);
    assert.equal((await previews(org, s.env.id)).length, 1);

    // reopened: a new copy for the same row
    const [reopened] = await t.ctx.services.previews.onPullRequest(pr(org, repo, { provider: 'GITLAB', number: 3, action: 'reopened', headCommit: SHA2 }));
    assert.deepEqual([reopened!.outcome, reopened!.preview_id], ['created', row.id]);
  });

  test('the cap refuses the next pull request with a message, visible in the list; a later event opens it once there is room', async () => {
    const org = await seedOrganization(t);
    const repo = `https://github.com/acme/shop-${randomUUID().slice(0, 6)}`;
    const s = await shop(org, repo);
    for (const number of [1, 2]) assert.equal((await t.ctx.services.previews.onPullRequest(pr(org, repo, { number })))[0]!.outcome, 'created');
    const [refused] = await t.ctx.services.previews.onPullRequest(pr(org, repo, { number: 3, title: 'Third' }));
    assert.equal(refused!.outcome, 'refused');
    const list = await t.request('GET', `/environment/${s.env.id}/preview`, { token: await org.tokenFor('VIEWER') });
    assert.equal(list.status, 200);
    assert.equal(list.body.pagination.total_count, 3);
    const row = list.body.results.find((p: { pull_request_number: number }) => p.pull_request_number === 3);
    assert.deepEqual([row.state, row.preview_environment_id], ['REFUSED', null]);
    assert.equal(row.message, 'GitHub pull request #3 "Third" gets no preview: environment "staging" already has 2 open previews, the most allowed '
      + '(PREVIEW_MAX_PER_ENVIRONMENT=2); close a pull request or raise the limit, and the next event of this one makes its preview');
    const audit = (await api(org, 'GET', `/organization/${org.id}/events?targetType=ENVIRONMENT&subTargetType=PREVIEW`)).events
      .map((ev: { change: string }) => JSON.parse(ev.change));
    assert.ok(audit.some((c: { state: string; pull_request_number: number }) => c.state === 'REFUSED' && c.pull_request_number === 3), JSON.stringify(audit));
    const envs = (await api(org, 'GET', `/project/${s.projectId}/environment`)).results.length;
    assert.equal(envs, 3, 'no copy for the refused one');

    await t.ctx.services.previews.onPullRequest(pr(org, repo, { number: 1, action: 'closed' }));
    const [later] = await t.ctx.services.previews.onPullRequest(pr(org, repo, { number: 3, action: 'synchronize', headCommit: SHA2 }));
    assert.deepEqual([later!.outcome, later!.preview_id], ['created', row.id]);
    assert.equal((await previews(org, s.env.id))[0].state, 'OPEN');
  });

  test('nothing for services without auto_preview, another repository or base branch, or another organization', async () => {
    const org = await seedOrganization(t);
    const repo = `https://github.com/acme/shop-${randomUUID().slice(0, 6)}`;
    const s = await shop(org, repo);
    await api(org, 'PUT', `/application/${s.web.id}`, { auto_preview: false });
    assert.deepEqual(await t.ctx.services.previews.onPullRequest(pr(org, repo)), [], 'worker and web have auto_preview false');
    await api(org, 'PUT', `/application/${s.web.id}`, { auto_preview: true });
    assert.deepEqual(await t.ctx.services.previews.onPullRequest(pr(org, `${repo}-fork`)), []);
    assert.deepEqual(await t.ctx.services.previews.onPullRequest(pr(org, repo, { baseBranch: 'develop' })), []);
    const other = await seedOrganization(t);
    assert.deepEqual(await t.ctx.services.previews.onPullRequest({ ...pr(org, repo), organizationId: other.id }), []);
    assert.deepEqual(await previews(org, s.env.id), []);
    await assert.rejects(t.ctx.services.previews.onPullRequest(pr(org, repo, { headCommit: 'main' })), (err: unknown) => err instanceof AppError && err.status === 400);
  });

  test('a copy deleted by hand or expired closes its preview; deleting the source deletes its open copies', async () => {
    const org = await seedOrganization(t);
    const repo = `https://github.com/acme/shop-${randomUUID().slice(0, 6)}`;
    const s = await shop(org, repo);
    const [first] = await t.ctx.services.previews.onPullRequest(pr(org, repo, { number: 1 }));
    await api(org, 'DELETE', `/environment/${first!.preview_environment_id}`);
    const [row] = await previews(org, s.env.id);
    assert.deepEqual([row.state, row.message], ['CLOSED', 'the preview environment was deleted']);
    // a copy no event touched within PREVIEW_TTL_HOURS goes with the other expired copies
    const [stale] = await t.ctx.services.previews.onPullRequest(pr(org, repo, { number: 3 }));
    await t.ctx.db.query(`update environments set expires_at = now() - interval '1 minute' where id = $1`, [stale!.preview_environment_id]);
    assert.ok(await t.ctx.services.environments.removeExpired() >= 1);
    const expired = (await previews(org, s.env.id)).find((p: { pull_request_number: number }) => p.pull_request_number === 3);
    assert.deepEqual([expired.state, expired.message], ['CLOSED', 'the preview environment expired (no event of the pull request within PREVIEW_TTL_HOURS) and was deleted']);
    const [second] = await t.ctx.services.previews.onPullRequest(pr(org, repo, { number: 2 }));
    await api(org, 'DELETE', `/environment/${s.env.id}`);
    expectErrorBody(await t.request('GET', `/environment/${second!.preview_environment_id}`, { token: org.token }), 404);
    assert.deepEqual((await api(org, 'GET', `/project/${s.projectId}/environment`)).results, []);
  });

  test('the list route: 401 without a credential, 403 for another organization, 404 for an unknown environment, 400 for a bad id or page', async () => {
    const org = await seedOrganization(t);
    const s = await shop(org, `https://github.com/acme/shop-${randomUUID().slice(0, 6)}`);
    expectErrorBody(await t.request('GET', `/environment/${s.env.id}/preview`), 401);
    const other = await seedOrganization(t);
    expectErrorBody(await t.request('GET', `/environment/${s.env.id}/preview`, { token: other.token }), 403);
    expectErrorBody(await t.request('GET', `/environment/${randomUUID()}/preview`, { token: org.token }), 404);
    expectErrorBody(await t.request('GET', '/environment/nope/preview', { token: org.token }), 400);
    expectErrorBody(await t.request('GET', `/environment/${s.env.id}/preview?page_size=500`, { token: org.token }), 400);
    const empty = await t.request('GET', `/api/v1/environment/${s.env.id}/preview`, { token: org.token });
    assert.deepEqual(empty.body, { results: [], pagination: { page: 1, page_size: 20, total_count: 0, total_pages: 0 } });
  });
});
