// Pull requests from forks wait for approval (decision 0748), on the simulated engine: a fork's
// pull request makes no copy and deploys nothing (its preview is AWAITING_APPROVAL, saying who may
// approve and how) until a role that may deploy the environment approves its head commit; then the
// preview opens at that commit. A new commit waits again (the copy stays at the approved commit, not
// redeployed) until approved again. The approval's refusals (403, 404, 409, the cap) and the close.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { PullRequestEventInput } from '../../src/modules/previews/previews.service.ts';
import { expectErrorBody, seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';

const SHA1 = 'a1'.repeat(20);
const SHA2 = 'b2'.repeat(20);

describe('pull requests from forks wait for approval', () => {
  let t: TestApp;
  before(async () => { t = await startTestApp({ config: { previewMaxPerEnvironment: 1 } }); });
  after(async () => { await t.close(); });

  async function api(org: SeededOrganization, method: string, url: string, body?: unknown) {
    const r = await t.request(method, url, { token: org.token, body });
    assert.ok(r.status < 300, `${method} ${url}: ${r.status} ${r.raw}`);
    return r.body;
  }

  /** an environment (auto_preview on) with web (the repository, main) and a database */
  async function shop(org: SeededOrganization, repo: string) {
    const project = await api(org, 'POST', `/organization/${org.id}/project`, { name: `shop-${randomUUID().slice(0, 6)}` });
    const env = await api(org, 'POST', `/project/${project.id}/environment`, { name: 'staging', mode: 'STAGING', auto_preview: true });
    const web = await api(org, 'POST', `/environment/${env.id}/application`, {
      name: 'web', git_repository: { url: `${repo}.git`, branch: 'main' }, ports: [{ internal_port: 8080, publicly_accessible: true }],
    });
    await api(org, 'POST', `/environment/${env.id}/database`, { name: 'cache', type: 'REDIS', version: '7', mode: 'CONTAINER' });
    return { projectId: project.id as string, env, web };
  }

  const pr = (org: SeededOrganization, repo: string, over: Partial<PullRequestEventInput> = {}): PullRequestEventInput => ({
    provider: 'GITHUB', action: 'opened', number: 9, title: 'Fix typo', repositoryUrls: [repo], baseBranch: 'main', headBranch: 'patch-1',
    headCommit: SHA1, author: 'stranger', organizationId: org.id, fork: true, body: 'Please review\n\nThanks', ...over,
  });

  const previews = async (org: SeededOrganization, envId: string) => (await api(org, 'GET', `/environment/${envId}/preview`)).results;
  const environments = async (org: SeededOrganization, projectId: string) =>
    (await api(org, 'GET', `/project/${projectId}/environment`)).results.map((e: { name: string }) => e.name).sort();
  const deploymentsOf = async (org: SeededOrganization, envId: string) => {
    const services = (await api(org, 'GET', `/environment/${envId}/services`)).results as Array<{ id: string; name: string; service_type: string }>;
    const out: Record<string, Array<{ id: string; git_commit_id: string | null; triggered_by: string }>> = {};
    for (const s of services) out[s.name] = (await api(org, 'GET', `/${s.service_type.toLowerCase()}/${s.id}/deploymentHistoryV2?page_size=100`)).results;
    return out;
  };
  const approve = (token: string, envId: string, previewId: string) =>
    t.request('POST', `/environment/${envId}/preview/${previewId}/approve`, { token, headers: { 'x-berth-origin': 'CLI' } });

  test('opened → AWAITING_APPROVAL; approved → OPEN at the head; new commit → waits, copy untouched; approved again → redeployed; closed → gone', async () => {
    const org = await seedOrganization(t);
    const repo = `https://github.com/acme/shop-${randomUUID().slice(0, 6)}`;
    const s = await shop(org, repo);

    // opened from a fork: no copy, no deployment
    const [opened] = await t.ctx.services.previews.onPullRequest(pr(org, repo));
    assert.deepEqual([opened!.outcome, opened!.preview_environment_id, opened!.deployment_ids], ['awaiting_approval', null, []], JSON.stringify(opened));
    assert.deepEqual(await environments(org, s.projectId), ['staging']);
    assert.equal((await deploymentsOf(org, s.env.id)).web!.length, 0, 'nothing of the source deployed either');
    const [waiting] = await previews(org, s.env.id);
    assert.deepEqual([waiting.id, waiting.state, waiting.from_fork, waiting.approved_by, waiting.approved_at, waiting.preview_environment_id],
      [opened!.preview_id, 'AWAITING_APPROVAL', true, null, null, null]);
    assert.equal(waiting.message, `GitHub pull request #9 "Fix typo" comes from a fork: berth makes no preview of it and runs nothing (a copy would carry `
      + `the environment's secrets) until someone with a role that may deploy environment "staging" (DevOps and above) approves head commit ${SHA1.slice(0, 12)}: `
      + `POST /environment/${s.env.id}/preview/${waiting.id}/approve, \`berth preview approve ${waiting.id} --environment ${s.env.id}\`, `
      + 'or Approve on the environment\'s previews in the console. An approval is for one head commit: each new commit of the pull request waits for approval again.');
    const facts = await t.ctx.services.previews.find(waiting.id);
    assert.deepEqual([facts!.fromFork, facts!.body, facts!.title, facts!.author, facts!.headBranch, facts!.baseBranch, facts!.sourceEnvironmentId, facts!.previewEnvironmentId],
      [true, 'Please review\n\nThanks', 'Fix typo', 'stranger', 'patch-1', 'main', s.env.id, null]);
    // a repeated delivery changes nothing
    assert.deepEqual((await t.ctx.services.previews.onPullRequest(pr(org, repo))).map((o) => o.outcome), ['unchanged']);

    // a VIEWER may not approve; an unknown preview, or one of another environment, is 404; a bad id 400
    expectErrorBody(await approve(await org.tokenFor('VIEWER'), s.env.id, waiting.id), 403);
    expectErrorBody(await approve(org.token, s.env.id, randomUUID()), 404);
    expectErrorBody(await approve(org.token, randomUUID(), waiting.id), 404);
    expectErrorBody(await approve(org.token, s.env.id, 'nope'), 400);
    const other = await seedOrganization(t);
    expectErrorBody(await approve(other.token, s.env.id, waiting.id), 403);
    assert.equal((await previews(org, s.env.id))[0].state, 'AWAITING_APPROVAL');

    // a DEVOPS approves: the copy is made and deployed, the previewed service at the head commit
    const devops = await org.tokenFor('DEVOPS');
    const approved = await approve(devops, s.env.id, waiting.id);
    assert.equal(approved.status, 200, approved.raw);
    assert.deepEqual([approved.body.state, approved.body.from_fork, approved.body.message], ['OPEN', true, null]);
    assert.match(approved.body.approved_by, /^token devops-/);
    assert.ok(Date.parse(approved.body.approved_at) > Date.now() - 60_000);
    const copyId = approved.body.preview_environment_id as string;
    assert.deepEqual(await environments(org, s.projectId), ['staging', 'staging-pr-9']);
    const first = await deploymentsOf(org, copyId);
    assert.deepEqual([first.web!.length, first.web![0]!.git_commit_id, first.cache!.length], [1, SHA1, 1]);
    assert.equal(first.web![0]!.triggered_by, approved.body.approved_by, 'the deployment names who approved it');
    const log = (await api(org, 'GET', `/deployment/${first.web![0]!.id}/log?page_size=5`)).results.map((l: { message: string }) => l.message);
    assert.deepEqual(log.slice(0, 3), ['Preview of GitHub pull request #9 "Fix typo" (patch-1 into main)', `Commit ${SHA1} of patch-1 by stranger`,
      `The pull request comes from a fork: head commit ${SHA1} approved by ${approved.body.approved_by}`]);
    const audit = (await api(org, 'GET', `/organization/${org.id}/events?targetType=ENVIRONMENT&subTargetType=PREVIEW`)).events as Array<{ event_type: string; origin: string; change: string }>;
    assert.ok(audit.some((ev) => ev.event_type === 'ACCEPT' && ev.origin === 'CLI'), JSON.stringify(audit));
    assert.ok(audit.some((ev) => ev.origin === 'GIT' && JSON.parse(ev.change).state === 'OPEN' && JSON.parse(ev.change).approved_by === approved.body.approved_by));

    // approving what is not awaiting approval: 409
    expectErrorBody(await approve(devops, s.env.id, waiting.id), 409);

    // a new commit: back to AWAITING_APPROVAL, nothing redeployed, the copy stays at the approved commit
    const [sync] = await t.ctx.services.previews.onPullRequest(pr(org, repo, { action: 'synchronize', headCommit: SHA2 }));
    assert.deepEqual([sync!.outcome, sync!.preview_environment_id, sync!.deployment_ids], ['awaiting_approval', copyId, []]);
    const [again] = await previews(org, s.env.id);
    assert.deepEqual([again.state, again.head_commit, again.preview_environment_id], ['AWAITING_APPROVAL', SHA2, copyId]);
    assert.match(again.message, new RegExp(`its preview environment "staging-pr-9" stays at the approved commit ${SHA1.slice(0, 12)}, not redeployed with unreviewed code`));
    assert.match(again.message, /approves head commit b2b2b2b2b2b2: POST \/environment\//);
    const unchanged = await deploymentsOf(org, copyId);
    assert.deepEqual([unchanged.web!.length, unchanged.cache!.length], [1, 1]);
    const web = await api(org, 'GET', `/application/${(await api(org, 'GET', `/environment/${copyId}/services`)).results.find((x: { name: string }) => x.name === 'web').id}`);
    assert.equal(web.git_repository.branch, 'patch-1');

    // approved again: the copy's previewed service redeployed at the new head
    const second = await approve(org.token, s.env.id, waiting.id);
    assert.equal(second.status, 200, second.raw);
    assert.deepEqual([second.body.state, second.body.preview_environment_id, second.body.head_commit], ['OPEN', copyId, SHA2]);
    const redeployed = await deploymentsOf(org, copyId);
    assert.deepEqual([redeployed.web!.length, redeployed.web![0]!.git_commit_id, redeployed.cache!.length], [2, SHA2, 1]);
    // the approved head again (a repeated delivery): unchanged, nothing waits
    assert.deepEqual((await t.ctx.services.previews.onPullRequest(pr(org, repo, { action: 'synchronize', headCommit: SHA2 }))).map((o) => o.outcome), ['unchanged']);
    assert.equal((await previews(org, s.env.id))[0].state, 'OPEN');

    // closed: the copy goes
    const [closed] = await t.ctx.services.previews.onPullRequest(pr(org, repo, { action: 'closed', headCommit: SHA2 }));
    assert.equal(closed!.outcome, 'closed');
    assert.deepEqual(await environments(org, s.projectId), ['staging']);
    const [row] = await previews(org, s.env.id);
    assert.deepEqual([row.state, row.preview_environment_id], ['CLOSED', null]);
    expectErrorBody(await approve(devops, s.env.id, waiting.id), 409);
  });

  test('closing a fork\'s pull request that waits (with a copy kept) deletes the copy; a reopen waits again', async () => {
    const org = await seedOrganization(t);
    const repo = `https://gitlab.com/acme/shop-${randomUUID().slice(0, 6)}`;
    const s = await shop(org, repo);
    const [opened] = await t.ctx.services.previews.onPullRequest(pr(org, repo, { provider: 'GITLAB' }));
    assert.equal((await approve(org.token, s.env.id, opened!.preview_id!)).status, 200);
    await t.ctx.services.previews.onPullRequest(pr(org, repo, { provider: 'GITLAB', action: 'synchronize', headCommit: SHA2 }));
    assert.deepEqual(await environments(org, s.projectId), ['staging', 'staging-pr-9']);
    const [closed] = await t.ctx.services.previews.onPullRequest(pr(org, repo, { provider: 'GITLAB', action: 'closed', headCommit: SHA2 }));
    assert.equal(closed!.outcome, 'closed');
    assert.deepEqual(await environments(org, s.projectId), ['staging'], 'no copy left');
    assert.equal((await previews(org, s.env.id))[0].state, 'CLOSED');
    const [reopened] = await t.ctx.services.previews.onPullRequest(pr(org, repo, { provider: 'GITLAB', action: 'reopened', headCommit: SHA2 }));
    assert.deepEqual([reopened!.outcome, reopened!.preview_id], ['awaiting_approval', opened!.preview_id]);
    assert.deepEqual(await environments(org, s.projectId), ['staging']);
    // closed while waiting without a copy: closed, nothing to delete
    assert.equal((await t.ctx.services.previews.onPullRequest(pr(org, repo, { provider: 'GITLAB', action: 'closed' })))[0]!.outcome, 'closed');
    assert.equal((await previews(org, s.env.id))[0].state, 'CLOSED');
  });

  test('the cap: an approval when the environment has as many open previews as allowed is a 409 and the preview keeps waiting', async () => {
    const org = await seedOrganization(t);
    const repo = `https://github.com/acme/shop-${randomUUID().slice(0, 6)}`;
    const s = await shop(org, repo);
    const [inside] = await t.ctx.services.previews.onPullRequest(pr(org, repo, { number: 1, fork: false }));
    assert.equal(inside!.outcome, 'created', 'a pull request from the repository itself opens as before');
    const [fork] = await t.ctx.services.previews.onPullRequest(pr(org, repo, { number: 2 }));
    assert.equal(fork!.outcome, 'awaiting_approval', 'a waiting preview does not count against the cap, nor is refused by it');
    const refused = expectErrorBody(await approve(org.token, s.env.id, fork!.preview_id!), 409);
    assert.match(refused.message, /already has 1 open preview, the most allowed \(PREVIEW_MAX_PER_ENVIRONMENT=1\); close a pull request or raise the limit, then approve it again$/);
    assert.equal((await previews(org, s.env.id)).find((p: { id: string }) => p.id === fork!.preview_id).state, 'AWAITING_APPROVAL');
    await t.ctx.services.previews.onPullRequest(pr(org, repo, { number: 1, fork: false, action: 'closed' }));
    const ok = await approve(org.token, s.env.id, fork!.preview_id!);
    assert.deepEqual([ok.status, ok.body.state], [200, 'OPEN'], ok.raw);
  });

  test('a signed GitHub delivery from a fork waits for approval; its description is kept', async () => {
    const org = await seedOrganization(t);
    const repo = `https://github.com/acme/shop-${randomUUID().slice(0, 6)}`;
    const s = await shop(org, repo);
    const hook = await api(org, 'POST', `/organization/${org.id}/gitWebhook`, {});
    const { otherDelivery, signed } = await import('../git-push/fixtures.ts');
    const d = signed('github', otherDelivery('github-pr', repo, SHA1, { number: 12, fork: 'stranger/shop', body: 'From a fork' }), hook.secret);
    const r = await t.request('POST', `/gitWebhook/${org.id}/github`, { headers: d.headers, body: d.body });
    assert.equal(r.status, 200, r.raw);
    assert.deepEqual(r.body.previews.map((o: { outcome: string }) => o.outcome), ['awaiting_approval']);
    const facts = await t.ctx.services.previews.find(r.body.previews[0].preview_id);
    assert.deepEqual([facts!.fromFork, facts!.body, facts!.state], [true, 'From a fork', 'AWAITING_APPROVAL']);
    assert.deepEqual(await environments(org, s.projectId), ['staging']);
  });
});
