// Status on the provider through the whole flow (issue 40): signed pull-request webhooks to berth
// open, refresh and close a preview on the simulated engine; a provider API on loopback (the git
// token's git_api_url) records what berth posts. GitHub and GitLab: the exact statuses per commit
// and one comment per pull request, edited; a token that may not write (403) posts nothing more
// and the preview says why; a 500 is retried and the deployment is unaffected. Gitea and
// Bitbucket: the statuses of a push's deployment; a deployment started by hand is not reported.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { GitWebhookProvider } from '../../src/modules/git-push/signatures.ts';
import { subscribeTasks } from '../../src/workers/handlers.ts';
import { otherDelivery, pushDelivery, signed, type Delivery, type PullRequestOptions } from '../git-push/fixtures.ts';
import { eventually, seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';
import { startProviderApi, type ProviderApi, type ProviderCall, type ProviderName } from '../support/provider-api.ts';

const sha = () => randomUUID().replace(/-/g, '').padEnd(40, 'a');

describe('status on the provider', () => {
  let t: TestApp;
  let api: ProviderApi;
  before(async () => {
    api = await startProviderApi();
    t = await startTestApp({
      config: { webhookAllowPrivateTargets: true }, simulated: { stepMs: 30 },
      tuning: { providerRetries: { firstDelayMs: 100, maxDelayMs: 400 } },
    });
    await subscribeTasks(t.ctx, ['deployments.run', 'providers.report', 'providers.comment']);
  });
  after(async () => { await t.close(); await api.close(); });

  async function call(org: SeededOrganization, method: string, url: string, body?: unknown) {
    const r = await t.request(method, url, { token: org.token, body });
    assert.ok(r.status < 300, `${method} ${url}: ${r.status} ${r.raw}`);
    return r.body;
  }

  /** an organization with a git webhook secret, a token of `type` on the loopback API and an environment with `web` from `repo` */
  async function setup(provider: ProviderName, type: string, extra: { autoDeploy?: boolean } = {}) {
    const org = await seedOrganization(t);
    const secret = (await call(org, 'POST', `/organization/${org.id}/gitWebhook`)).secret as string;
    const token = `tok_${randomUUID().slice(0, 8)}`;
    const gitToken = await call(org, 'POST', `/organization/${org.id}/gitToken`, {
      name: 'ci', type, token, git_api_url: api.apiUrl(provider), ...(type === 'BITBUCKET' ? { workspace: 'acme' } : {}),
    });
    const host = { github: 'github.com', gitlab: 'gitlab.com', gitea: 'gitea.example', bitbucket: 'bitbucket.org' }[provider];
    const repo = `https://${host}/acme/shop-${randomUUID().slice(0, 6)}`;
    const project = await call(org, 'POST', `/organization/${org.id}/project`, { name: `p-${randomUUID().slice(0, 6)}` });
    const env = await call(org, 'POST', `/project/${project.id}/environment`, { name: 'staging', mode: 'STAGING', auto_preview: true });
    const web = await call(org, 'POST', `/environment/${env.id}/application`, {
      name: 'web', git_repository: { url: `${repo}.git`, branch: 'main', git_token_id: gitToken.id }, auto_deploy: extra.autoDeploy ?? false,
      ports: [{ internal_port: 8080, publicly_accessible: true }],
    });
    const path = repo.replace(/^https:\/\/[^/]+\//, '');
    const send = (wire: GitWebhookProvider, d: Delivery) => {
      const sd = signed(wire, d, secret);
      return t.request('POST', `/gitWebhook/${org.id}/${wire}`, { headers: sd.headers, body: sd.body });
    };
    return { org, token, repo, path, env, web, send };
  }

  const previewsOf = async (org: SeededOrganization, envId: string) => (await call(org, 'GET', `/environment/${envId}/preview`)).results;

  const commitStatuses = (provider: ProviderName, re: RegExp, field: string): Record<string, string[]> => {
    const out: Record<string, string[]> = {};
    for (const c of api.of(provider, re)) (out[re.exec(c.path)![1]!] ??= []).push(c.body[field] as string);
    return out;
  };

  test('GitHub: open → push → close posts a Deployment per commit (queued, in_progress, success) and one comment, edited', async () => {
    const s = await setup('github', 'GITHUB');
    const [c1, c2] = [sha(), sha()];
    const pr = (commit: string, o: PullRequestOptions) => otherDelivery('github-pr', s.repo, commit, { number: 7, ...o });
    const deploymentsRe = new RegExp(`^/repos/${s.path}/deployments/(\\d+)/statuses$`);
    const statusesOf = () => {
      const made = api.of('github', new RegExp(`^/repos/${s.path}/deployments$`));
      const byId = new Map<string, string[]>();
      for (const c of api.of('github', deploymentsRe)) {
        const id = deploymentsRe.exec(c.path)![1]!;
        byId.set(id, [...(byId.get(id) ?? []), c.body.state as string]);
      }
      return { made, byId };
    };
    const done = (n: number) => eventually(async () => {
      const { made, byId } = statusesOf();
      return made.length === n && [...byId.values()].filter((v) => v.at(-1) === 'success').length === n;
    }, 15_000);

    assert.equal((await s.send('github', pr(c1, { action: 'opened' }))).status, 200);
    await done(1);
    assert.equal((await s.send('github', pr(c2, { action: 'synchronize' }))).status, 200);
    await done(2);
    const { made, byId } = statusesOf();
    assert.deepEqual(made.map((c) => [c.body.ref, c.body.environment, c.body.transient_environment]), [[c1, 'staging-pr-7/web', true], [c2, 'staging-pr-7/web', true]]);
    assert.deepEqual([...byId.values()], [['queued', 'in_progress', 'success'], ['queued', 'in_progress', 'success']], 'each commit: its statuses in order');
    const success = api.of('github', deploymentsRe).find((c) => c.body.state === 'success')!;
    assert.match(String(success.body.environment_url), /^http:\/\/.+/, 'success carries the environment URL');
    for (const c of api.of('github')) assert.equal(c.authorization, `Bearer ${s.token}`, 'the git token in the Authorization header');

    assert.equal((await s.send('github', pr(c2, { action: 'closed' }))).status, 200);
    const edits = await eventually(async () => {
      const e = api.of('github', /^\/repos\/.+\/issues\/comments\/\d+$/).filter((c) => c.path.startsWith(`/repos/${s.path}/`));
      return e.some((c) => String(c.body.body).includes('Closed')) ? e : null;
    }, 15_000);
    const created = api.of('github', new RegExp(`^/repos/${s.path}/issues/7/comments$`));
    assert.equal(created.length, 1, 'one comment per pull request');
    assert.ok(edits.length >= 1 && edits.every((c) => c.method === 'PATCH' && c.path.endsWith(`/comments/${edits[0]!.path.split('/').at(-1)}`)), 'edited in place');
    assert.match(String(created[0]!.body.body), /^<!-- berth:preview -->/);
    const withTable = [created[0]!, ...edits].map((c) => String(c.body.body)).find((b) => b.includes('✅ Deployed'));
    assert.ok(withTable && /\| web \| \[http/.test(withTable), `the table lists web, its URL and state: ${withTable}`);
    const [preview] = await previewsOf(s.org, s.env.id);
    assert.equal(preview.provider_status.reporting, true);
    assert.ok(preview.provider_status.last_posted_at);
  });

  test('GitLab: commit statuses pending → running → success per commit with target_url and name; one note, edited', async () => {
    const s = await setup('gitlab', 'GITLAB');
    const [c1, c2] = [sha(), sha()];
    const mr = (commit: string, action: string) => otherDelivery('gitlab-mr', s.repo, commit, { number: 4, action });
    const re = new RegExp(`^/projects/${encodeURIComponent(s.path)}/statuses/([0-9a-f]+)$`);
    const finished = (n: number) => eventually(async () => Object.values(commitStatuses('gitlab', re, 'state')).filter((v) => v.at(-1) === 'success').length === n, 15_000);
    assert.equal((await s.send('gitlab', mr(c1, 'open'))).status, 200);
    await finished(1);
    assert.equal((await s.send('gitlab', mr(c2, 'update'))).status, 200);
    await finished(2);
    assert.deepEqual(commitStatuses('gitlab', re, 'state'), { [c1]: ['pending', 'running', 'success'], [c2]: ['pending', 'running', 'success'] });
    const last = api.of('gitlab', re).at(-1)!;
    assert.equal(last.body.name, 'staging-pr-4/web');
    assert.match(String(last.body.target_url), /^http:\/\//);
    assert.equal(last.authorization, `Bearer ${s.token}`);
    assert.equal((await s.send('gitlab', mr(c2, 'close'))).status, 200);
    const notesRe = new RegExp(`^/projects/${encodeURIComponent(s.path)}/merge_requests/4/notes(/\\d+)?$`);
    await eventually(async () => api.of('gitlab', notesRe).some((c) => c.method === 'PUT' && String(c.body.body).includes('Closed')), 15_000);
    const notes = api.of('gitlab', notesRe);
    assert.equal(notes.filter((c) => c.method === 'POST').length, 1, 'one note');
    assert.ok(notes.filter((c) => c.method !== 'POST').every((c) => c.method === 'PUT'));
  });

  test('a token that may not write (403): nothing more is posted and the preview says why; the deployment is unaffected', async () => {
    const s = await setup('github', 'GITHUB');
    api.answer(403, (c: ProviderCall) => c.path.startsWith(`/repos/${s.path}/`));
    const c1 = sha();
    assert.equal((await s.send('github', otherDelivery('github-pr', s.repo, c1, { number: 9, action: 'opened' }))).status, 200);
    const [preview] = await eventually(async () => {
      const p = await previewsOf(s.org, s.env.id);
      return p[0]?.provider_status?.reporting === false ? p : null;
    }, 15_000);
    assert.match(preview.provider_status.reason, /GitHub says the git token may not write here \(403\)/);
    const copyServices = (await call(s.org, 'GET', `/environment/${preview.preview_environment_id}/services`)).results;
    const web = copyServices.find((x: { name: string }) => x.name === 'web');
    await eventually(async () => (await call(s.org, 'GET', `/application/${web.id}/deploymentHistoryV2`)).results[0]?.status === 'DEPLOYED', 15_000);
    const before = api.of('github').filter((c) => c.path.startsWith(`/repos/${s.path}/`)).length;
    assert.equal(before, 1, 'one refused call, then nothing');
    assert.equal((await s.send('github', otherDelivery('github-pr', s.repo, sha(), { number: 9, action: 'synchronize' }))).status, 200);
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(api.of('github').filter((c) => c.path.startsWith(`/repos/${s.path}/`)).length, 1, 'a later commit posts nothing either');
  });

  test('a provider answering 500 is retried and recorded; the deployment is unaffected', async () => {
    const s = await setup('github', 'GITHUB');
    api.answer(500, (c: ProviderCall) => c.path.startsWith(`/repos/${s.path}/deployments/`) && c.body.state === 'queued', 2);
    const c1 = sha();
    assert.equal((await s.send('github', otherDelivery('github-pr', s.repo, c1, { number: 11, action: 'opened' }))).status, 200);
    const re = new RegExp(`^/repos/${s.path}/deployments/\\d+/statuses$`);
    await eventually(async () => api.of('github', re).some((c) => c.body.state === 'success'), 15_000);
    assert.deepEqual(api.of('github', re).map((c) => c.body.state), ['queued', 'queued', 'queued', 'in_progress', 'success'], 'two 500s, then in order');
    assert.equal(api.of('github', new RegExp(`^/repos/${s.path}/deployments$`)).length, 1, 'one Deployment, its id kept across retries');
    const [preview] = await previewsOf(s.org, s.env.id);
    assert.match(preview.provider_status.last_error, /^500/);
    assert.equal(preview.provider_status.reporting, true);
  });

  test('Gitea and Bitbucket: a push\'s deployment posts its commit statuses; a deployment started by hand posts nothing', async () => {
    for (const [provider, type, wire, re, words] of [
      ['gitea', 'GENERIC', 'gitea', /^\/repos\/acme\/[^/]+\/statuses\/([0-9a-f]+)$/, ['pending', 'pending', 'success']],
      ['bitbucket', 'BITBUCKET', 'bitbucket', /^\/repositories\/acme\/[^/]+\/commit\/([0-9a-f]+)\/statuses\/build$/, ['INPROGRESS', 'INPROGRESS', 'SUCCESSFUL']],
    ] as const) {
      const s = await setup(provider, type, { autoDeploy: true });
      const commit = sha();
      const r = await s.send(wire, pushDelivery(wire, { web: s.repo, commit }));
      assert.equal(r.status, 200, r.raw);
      const field = 'state';
      await eventually(async () => commitStatuses(provider, re, field)[commit]?.length === 3, 15_000);
      assert.deepEqual(commitStatuses(provider, re, field)[commit], words, provider);
      const last = api.of(provider, re).filter((c) => c.path.includes(commit)).at(-1)!;
      assert.equal(provider === 'gitea' ? last.body.context : last.body.name, 'berth/web');
      assert.equal(last.authorization, provider === 'gitea' ? `token ${s.token}` : `Bearer ${s.token}`);
      // calls about this commit only: an earlier test's late retries or comment edits are not this deployment's
      const aboutCommit = () => api.calls.filter((c) => c.path.includes(commit)).length;
      const count = aboutCommit();
      await call(s.org, 'POST', `/application/${s.web.id}/deploy`, { git_commit_id: commit });
      await eventually(async () => (await call(s.org, 'GET', `/application/${s.web.id}/deploymentHistoryV2`)).results[0]?.status === 'DEPLOYED', 15_000);
      await new Promise((res) => setTimeout(res, 300));
      assert.equal(aboutCommit(), count, 'a deployment started by hand is not reported');
    }
  });
});
