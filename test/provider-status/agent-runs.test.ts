// An agent run per pull request through the whole flow (issue 40), on the simulated engine: a
// workflow with a pull_requests trigger runs once the preview of the head commit is deployed, against
// the preview (its copy of the workflow), with the pull request in its payload; its verdict is
// posted as a commit status and a line of the pull request's comment; a new commit cancels the
// stale run and starts one for the new head; closing the pull request cancels a run in progress.
// The provider API on loopback records what berth posts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { subscribeTasks } from '../../src/workers/handlers.ts';
import { otherDelivery, signed, type PullRequestOptions } from '../git-push/fixtures.ts';
import { eventually, seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';
import { startProviderApi, type ProviderApi } from '../support/provider-api.ts';

const sha = () => randomUUID().replace(/-/g, '').padEnd(40, 'b');

describe('an agent run per pull request', () => {
  let t: TestApp;
  let api: ProviderApi;
  before(async () => {
    api = await startProviderApi();
    t = await startTestApp({ config: { webhookAllowPrivateTargets: true }, simulated: { stepMs: 30 } });
    await subscribeTasks(t.ctx, ['deployments.run', 'providers.report', 'providers.comment', 'workflows.pull-request']);
  });
  after(async () => { await t.close(); await api.close(); });

  async function call(org: SeededOrganization, method: string, url: string, body?: unknown) {
    const r = await t.request(method, url, { token: org.token, body });
    assert.ok(r.status < 300, `${method} ${url}: ${r.status} ${r.raw}`);
    return r.body;
  }

  /** an environment previewing `web` of a GitHub repository, with a workflow its pull requests trigger */
  async function setup(trigger: (repo: string) => unknown = (repo) => ({ repository_url: repo })) {
    const org = await seedOrganization(t);
    const secret = (await call(org, 'POST', `/organization/${org.id}/gitWebhook`)).secret as string;
    const gitToken = await call(org, 'POST', `/organization/${org.id}/gitToken`, { name: 'ci', type: 'GITHUB', token: `tok_${randomUUID().slice(0, 8)}`, git_api_url: api.apiUrl('github') });
    const repo = `https://github.com/acme/shop-${randomUUID().slice(0, 6)}`;
    const project = await call(org, 'POST', `/organization/${org.id}/project`, { name: `p-${randomUUID().slice(0, 6)}` });
    const env = await call(org, 'POST', `/project/${project.id}/environment`, { name: 'staging', mode: 'STAGING', auto_preview: true });
    await call(org, 'POST', `/environment/${env.id}/application`, {
      name: 'web', git_repository: { url: `${repo}.git`, branch: 'main', git_token_id: gitToken.id }, ports: [{ internal_port: 8080, publicly_accessible: true }],
    });
    const workflow = await call(org, 'POST', `/environment/${env.id}/agenticWorkflow`, {
      name: 'reviewer', agent_prompt: 'Test the preview and give a verdict.', model: { type: 'CLAUDE', api_key: 'sk-test' }, pull_requests: trigger(repo),
    });
    const path = repo.replace(/^https:\/\/[^/]+\//, '');
    const send = async (commit: string, o: PullRequestOptions) => {
      const sd = signed('github', otherDelivery('github-pr', repo, commit, { number: 9, ...o }), secret);
      const r = await t.request('POST', `/gitWebhook/${org.id}/github`, { headers: sd.headers, body: sd.body });
      assert.equal(r.status, 200, r.raw);
    };
    const runs = async () => (await call(org, 'GET', `/agenticWorkflow/${workflow.id}/run`)).results as Array<Record<string, any>>;
    return { org, env, workflow, path, repo, send, runs };
  }

  test('the run starts once the preview is deployed, against it; its verdict is posted as a status and in the comment', async () => {
    const s = await setup();
    assert.deepEqual(s.workflow.pull_requests, { repository_url: s.repo, base_branch: null });
    const c1 = sha();
    await s.send(c1, { action: 'opened' });
    const [run] = await eventually(async () => {
      const r = await s.runs();
      return r.length === 1 && r[0]!.status === 'SUCCEEDED' ? r : null;
    }, 15_000);
    assert.equal(run!.trigger, 'PULL_REQUEST');
    assert.equal(run!.head_commit, c1);
    const [preview] = (await call(s.org, 'GET', `/environment/${s.env.id}/preview`)).results;
    assert.equal(run!.preview_id, preview.id);
    assert.equal(run!.clone_environment_id, preview.preview_environment_id, 'the run ran against the preview environment');
    assert.equal(run!.payload.pull_request.number, 9);
    assert.equal(run!.payload.pull_request.head_commit, c1);
    assert.equal(run!.payload.pull_request.repository_url, `${s.repo}.git`);
    const web = run!.payload.preview.services.find((x: { name: string }) => x.name === 'web');
    assert.match(String(web.url), /^http:\/\//, 'the preview\'s URL is in the payload');
    assert.match(String(web.internal_url), /^http:\/\/[a-z0-9-]+:8080$/, 'and its address on the preview\'s network');
    // the deployment the run made is the preview's copy of the workflow, not the original
    const deployment = await call(s.org, 'GET', `/deployment/${run!.deployment_id}`);
    assert.notEqual(deployment.service_id, s.workflow.id);
    const copies = (await call(s.org, 'GET', `/environment/${preview.preview_environment_id}/agenticWorkflow`)).results;
    assert.deepEqual(copies.map((w: { id: string }) => w.id), [deployment.service_id]);

    const statusRe = new RegExp(`^/repos/${s.path}/statuses/${c1}$`);
    const verdicts = await eventually(async () => {
      const v = api.of('github', statusRe).filter((c) => c.body.context === 'berth/agent/reviewer');
      return v.at(-1)?.body.state === 'success' ? v : null;
    }, 15_000);
    assert.deepEqual(verdicts.map((c) => c.body.state), ['pending', 'pending', 'success'], 'queued, running, then the verdict');
    assert.match(String(verdicts.at(-1)!.body.description), /simulated engine calls no model/, 'the verdict is the agent\'s final answer');
    assert.match(String(verdicts.at(-1)!.body.target_url), new RegExp(`/ui/workflows/${s.workflow.id}/runs/${run!.id}$`));
    const comment = await eventually(async () => {
      const bodies = api.of('github', new RegExp(`^/repos/${s.path}/issues/(9/comments|comments/\\d+)$`)).map((c) => String(c.body.body));
      return bodies.find((b) => b.includes('#### Agent runs') && b.includes('✅ Done')) ?? null;
    }, 15_000);
    assert.match(comment, /\| \[reviewer\]\(http[^)]+\) \| ✅ Done \| .*simulated engine calls no model/);
    assert.equal(api.of('github', new RegExp(`^/repos/${s.path}/issues/9/comments$`)).length, 1, 'still one comment');
  });

  test('a new commit cancels the stale run and starts one for the new head; closing cancels a run in progress', async () => {
    const s = await setup();
    t.engine.configure({ stepMs: 600 });
    try {
      const [c1, c2, c3] = [sha(), sha(), sha()];
      await s.send(c1, { action: 'opened' });
      await eventually(async () => (await s.runs()).find((r) => r.head_commit === c1 && r.status === 'RUNNING') ?? null, 20_000);
      await s.send(c2, { action: 'synchronize' });
      const stale = await eventually(async () => (await s.runs()).find((r) => r.head_commit === c1 && r.status === 'CANCELED') ?? null, 10_000);
      assert.match(stale.message, /newer commit \(.+\) was pushed/);
      t.engine.configure({ stepMs: 30 });
      const fresh = await eventually(async () => (await s.runs()).find((r) => r.head_commit === c2 && r.status === 'SUCCEEDED') ?? null, 20_000);
      assert.equal(fresh.trigger, 'PULL_REQUEST');
      assert.equal((await s.runs()).length, 2, 'one run per head commit');

      t.engine.configure({ stepMs: 600 });
      await s.send(c3, { action: 'synchronize' });
      const running = await eventually(async () => (await s.runs()).find((r) => r.head_commit === c3 && r.status === 'RUNNING') ?? null, 20_000);
      await s.send(c3, { action: 'closed' });
      const closed = await eventually(async () => (await s.runs()).find((r) => r.id === running.id && r.status === 'CANCELED') ?? null, 10_000);
      assert.match(closed.message, /pull request was closed/);
      const log = await call(s.org, 'GET', `/agenticWorkflow/${s.workflow.id}/run/${closed.id}/log`);
      assert.ok(log.results.length > 0, 'the run keeps its log once its preview is gone');
      // the stale run's verdict on c1 says canceled
      const c1Verdicts = () => api.of('github', new RegExp(`^/repos/${s.path}/statuses/${c1}$`)).filter((c) => c.body.context === 'berth/agent/reviewer');
      await eventually(async () => c1Verdicts().some((c) => c.body.state === 'error') || null, 10_000);
      assert.match(String(c1Verdicts().at(-1)!.body.description), /^Agent run canceled: A newer commit/);
    } finally {
      t.engine.configure({ stepMs: 30 });
    }
  });

  test('a workflow of another repository or base branch, or disabled, runs nothing; a bad repository URL is a 400', async () => {
    const other = await setup(() => ({ repository_url: 'https://github.com/acme/elsewhere' }));
    const branch = await setup((repo) => ({ repository_url: repo, base_branch: 'release' }));
    for (const s of [other, branch]) await s.send(sha(), { action: 'opened' });
    // each preview is deployed, and the task that would start a run has run (the statuses are posted after it)
    for (const s of [other, branch]) {
      await eventually(async () => api.of('github', new RegExp(`^/repos/${s.path}/deployments/\\d+/statuses$`)).some((c) => c.body.state === 'success') || null, 15_000);
    }
    await new Promise((r) => setTimeout(r, 500));
    for (const s of [other, branch]) assert.deepEqual(await s.runs(), []);

    const s = await setup();
    for (const url of ['not a repository', 'https://github.com/acme', '/srv/git/shop.git']) {
      const bad = await t.request('PUT', `/agenticWorkflow/${s.workflow.id}`, { token: s.org.token, body: { name: 'reviewer', pull_requests: { repository_url: url } } });
      assert.equal(bad.status, 400, `${url}: ${bad.raw}`);
      assert.match(bad.raw, /pull_requests\.repository_url/);
    }
    assert.equal((await call(s.org, 'GET', `/agenticWorkflow/${s.workflow.id}`)).pull_requests.repository_url, s.repo, 'nothing stored by a refused edit');
    const off = await call(s.org, 'PUT', `/agenticWorkflow/${s.workflow.id}`, { name: 'reviewer', pull_requests: null });
    assert.equal(off.pull_requests, null);
  });
});
