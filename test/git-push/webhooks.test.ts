// Provider webhooks through the API (real HTTP routes, real database): the organization's git
// webhook secret; a signed push of each provider queues exactly one deployment of the pushed
// commit (origin GIT, triggered_by the pusher, the commit first in its log, audited); a tampered
// body, a wrong secret or a missing signature is a 401 and nothing; a replayed delivery, a push to
// another branch, a service with auto_deploy false and non-push events deploy nothing; a closed
// deployment window makes the commit wait until it opens.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { WEEKDAYS } from '../../src/modules/deployment-rules/deployment-rules.rules.ts';
import type { GitWebhookProvider } from '../../src/modules/git-push/signatures.ts';
import { seedEnvironment, type SeededEnvironment } from '../support/factories.ts';
import { eventually, expectErrorBody, seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';
import { otherDelivery, pushDelivery, signed, type Delivery, type PushSpec } from './fixtures.ts';

const sha = () => randomUUID().replace(/-/g, '').padEnd(40, '7');

describe('git push webhooks', () => {
  let t: TestApp;
  let org: SeededOrganization;
  let env: SeededEnvironment;
  let secret: string;
  before(async () => {
    t = await startTestApp();
    org = await seedOrganization(t);
    env = await seedEnvironment(t, org);
    const made = await t.request('POST', `/organization/${org.id}/gitWebhook`, { token: org.token });
    assert.equal(made.status, 201, made.raw);
    secret = made.body.secret;
  });
  after(() => t.close());

  const send = (provider: string, d: Delivery, organizationId = org.id) =>
    t.request('POST', `/gitWebhook/${organizationId}/${provider}`, { headers: d.headers, body: d.body });
  const deploymentsOf = async (serviceId: string) => (await t.ctx.db.query<{ id: string; git_commit_id: string; origin: string; triggered_by: string; status: string }>(
    'select id, git_commit_id, origin, triggered_by, status from deployments where service_id = $1 order by position', [serviceId]));
  async function application(web: string, extra: Record<string, unknown> = {}, environment = env): Promise<string> {
    const r = await t.request('POST', `/environment/${environment.id}/application`, {
      token: org.token, body: { name: `app-${randomUUID().slice(0, 8)}`, git_repository: { url: `${web}.git`, branch: 'main' }, ...extra },
    });
    assert.equal(r.status, 201, r.raw);
    return r.body.id;
  }
  const push = (provider: GitWebhookProvider, spec: PushSpec) => signed(provider, pushDelivery(provider, spec), secret);

  test('the git webhook secret: made by ADMIN and above, shown once, a payload URL per provider', async () => {
    const got = await t.request('GET', `/organization/${org.id}/gitWebhook`, { token: org.token });
    assert.equal(got.status, 200);
    assert.equal(got.body.secret_set, true);
    assert.equal(got.body.secret, undefined, 'never returned after creation');
    assert.equal(got.body.urls.github, `http://berth.test/gitWebhook/${org.id}/github`);
    assert.deepEqual(Object.keys(got.body.urls).sort(), ['bitbucket', 'forgejo', 'gitea', 'github', 'gitlab']);
    assert.match(secret, /^bgw_[\w-]{40,}$/);
    const stored = await t.ctx.db.query<{ secret: string }>('select secret from git_webhook_secrets where organization_id = $1', [org.id]);
    assert.ok(!stored[0]!.secret.includes(secret), 'sealed at rest');
    const audited = await eventually(async () => (await t.request('GET', `/organization/${org.id}/events?subTargetType=GIT_WEBHOOK`, { token: org.token })).body.events[0]);
    assert.deepEqual([audited.event_type, audited.target_type], ['CREATE', 'ORGANIZATION']);
    assert.ok(!JSON.stringify(audited).includes(secret), 'the secret is not in the audit log');
    for (const role of ['VIEWER', 'DEVOPS'] as const) {
      expectErrorBody(await t.request('POST', `/organization/${org.id}/gitWebhook`, { token: await org.tokenFor(role) }), 403);
      expectErrorBody(await t.request('GET', `/organization/${org.id}/gitWebhook`, { token: await org.tokenFor(role) }), 403);
    }
  });

  for (const provider of ['github', 'gitlab', 'bitbucket', 'gitea', 'forgejo'] as const) {
    test(`${provider}: a signed push queues exactly one deployment of the commit, its log starting with the commit`, async () => {
      const web = `https://${provider}.example.com/acme/shop-${randomUUID().slice(0, 6)}`;
      const app = await application(web);
      const commit = sha();
      const r = await send(provider, push(provider, { web, commit, pusher: 'pat', message: 'Make the button blue' }));
      assert.equal(r.status, 200, r.raw);
      assert.equal(r.body.ignored, null);
      assert.equal(r.body.results.length, 1);
      const [result] = r.body.results;
      assert.equal(result.service_id, app);
      assert.equal(result.outcome, 'deployed');
      const deployments = await deploymentsOf(app);
      assert.equal(deployments.length, 1);
      // queued; a deployment worker of this test process may have taken it up already
      const { status, ...queued } = deployments[0]!;
      assert.deepEqual(queued, { id: result.deployment_id, git_commit_id: commit, origin: 'GIT', triggered_by: 'pat' });
      assert.ok(typeof status === 'string');
      const record = (await t.request('GET', `/deployment/${result.deployment_id}`, { token: org.token })).body;
      assert.equal(record.metadata.git.branch, 'main');
      assert.equal(record.metadata.git.author, 'Jane Doe <jane@example.com>');
      const log = (await t.request('GET', `/deployment/${result.deployment_id}/log`, { token: org.token })).body.results.map((l: { message: string }) => l.message);
      assert.match(log[0], new RegExp(`^Commit ${commit} pushed to main by pat \\(\\w+ webhook\\)$`));
      assert.equal(log[1], 'Author: Jane Doe <jane@example.com>');
      assert.equal(log[2], '    Make the button blue');
    });
  }

  test('a job built from git with auto_deploy deploys on push too', async () => {
    const web = `https://gitea.example.com/acme/batch-${randomUUID().slice(0, 6)}`;
    const job = await t.request('POST', `/environment/${env.id}/job`, {
      token: org.token, body: { name: `job-${randomUUID().slice(0, 6)}`, source: { docker: { git_repository: { url: `${web}.git`, branch: 'main' } } }, schedule: { on_start: {} }, auto_deploy: true },
    });
    assert.equal(job.status, 201, job.raw);
    const commit = sha();
    const r = await send('gitea', push('gitea', { web, commit }));
    assert.equal(r.body.results[0]?.outcome, 'deployed', r.raw);
    assert.deepEqual((await deploymentsOf(job.body.id)).map((d) => d.git_commit_id), [commit]);
  });

  test('a tampered body, a wrong secret, a missing signature or no secret at all: 401 with the error body, and no deployment', async () => {
    const web = `https://github.example.com/acme/guarded-${randomUUID().slice(0, 6)}`;
    const app = await application(web);
    const good = push('github', { web, commit: sha() });
    const cases: Array<[string, Delivery, string?]> = [
      ['tampered', { headers: good.headers, body: good.body.replace('"main"', '"main" ') }],
      ['wrong secret', signed('github', pushDelivery('github', { web, commit: sha() }), 'bgw_not-the-secret')],
      ['no signature', pushDelivery('github', { web, commit: sha() })],
      ['gitlab wrong token', signed('gitlab', pushDelivery('gitlab', { web, commit: sha() }), 'bgw_not-the-secret')],
      ['bitbucket unsigned', pushDelivery('bitbucket', { web, commit: sha() })],
    ];
    for (const [name, d] of cases) {
      const provider = name.startsWith('gitlab') ? 'gitlab' : name.startsWith('bitbucket') ? 'bitbucket' : 'github';
      const r = await send(provider, d);
      const body = expectErrorBody(r, 401);
      assert.match(body.message, /signature does not check out/, name);
    }
    const other = await seedOrganization(t);
    expectErrorBody(await send('github', good, other.id), 401);
    expectErrorBody(await send('github', good, randomUUID()), 401);
    assert.equal((await deploymentsOf(app)).length, 0);
  });

  test('a replayed delivery (same delivery id) and the same commit again deploy nothing more', async () => {
    const web = `https://github.example.com/acme/replay-${randomUUID().slice(0, 6)}`;
    const app = await application(web);
    const d = push('github', { web, commit: sha(), deliveryId: randomUUID() });
    assert.equal((await send('github', d)).body.results[0].outcome, 'deployed');
    const replay = await send('github', d);
    assert.equal(replay.status, 200);
    assert.match(replay.body.ignored, /already received/);
    const sameCommit = await send('github', push('github', { web, commit: JSON.parse(d.body).after }));
    assert.equal(sameCommit.body.results[0].outcome, 'already_seen');
    assert.equal((await deploymentsOf(app)).length, 1);
  });

  test('a push to another branch, and a service with auto_deploy false, are untouched', async () => {
    const web = `https://gitlab.example.com/acme/quiet-${randomUUID().slice(0, 6)}`;
    const tracking = await application(web);
    const off = await application(web, { auto_deploy: false });
    const other = await send('gitlab', push('gitlab', { web, branch: 'develop', commit: sha() }));
    assert.equal(other.status, 200);
    assert.match(other.body.ignored, /no service with auto_deploy tracks develop/);
    const main = await send('gitlab', push('gitlab', { web, commit: sha() }));
    assert.deepEqual(main.body.results.map((o: { service_id: string }) => o.service_id), [tracking]);
    assert.equal((await deploymentsOf(off)).length, 0);
    assert.equal((await deploymentsOf(tracking)).length, 1);
  });

  test('non-push events (ping, pull and merge requests, tags, deleted branches) are acknowledged and ignored', async () => {
    const web = `https://github.example.com/acme/events-${randomUUID().slice(0, 6)}`;
    const app = await application(web);
    const tag = pushDelivery('github', { web, commit: sha() });
    for (const [provider, d] of [
      ['github', otherDelivery('github-ping', web, sha())], ['github', otherDelivery('github-pr', web, sha())],
      ['gitlab', otherDelivery('gitlab-mr', web, sha())], ['bitbucket', otherDelivery('bitbucket-pr', web, sha())],
      ['github', { headers: tag.headers, body: tag.body.replace('"refs/heads/main"', '"refs/tags/v1"') }],
      ['github', pushDelivery('github', { web, commit: sha(), deleted: true })],
    ] as Array<[GitWebhookProvider, Delivery]>) {
      const r = await send(provider, signed(provider, d, secret));
      assert.equal(r.status, 200, r.raw);
      assert.ok(r.body.ignored, r.raw);
      assert.deepEqual(r.body.results, []);
    }
    assert.equal((await deploymentsOf(app)).length, 0);
  });

  test('a signed pull request event opens its preview environment, a replay changes nothing, closing it removes the copy', async () => {
    const web = `https://github.example.com/acme/previews-${randomUUID().slice(0, 6)}`;
    const previewed = await t.request('POST', `/project/${env.projectId}/environment`, { token: org.token, body: { name: `pr-source-${randomUUID().slice(0, 6)}`, mode: 'STAGING', auto_preview: true } });
    assert.equal(previewed.status, 201, previewed.raw);
    await application(web, {}, { ...env, id: previewed.body.id });
    const head = sha();
    const opened = signed('github', otherDelivery('github-pr', web, head, { number: 77 }), secret);
    const r = await send('github', opened);
    assert.equal(r.status, 200, r.raw);
    assert.equal(r.body.ignored, null, r.raw);
    assert.deepEqual(r.body.previews.map((o: { outcome: string }) => o.outcome), ['created']);
    const copyId = r.body.previews[0].preview_environment_id;
    const copy = await t.request('GET', `/environment/${copyId}`, { token: org.token });
    assert.deepEqual([copy.body.mode, copy.body.name], ['PREVIEW', `${previewed.body.name}-pr-77`]);
    const listed = await t.request('GET', `/environment/${previewed.body.id}/preview`, { token: org.token });
    assert.deepEqual(listed.body.results.map((p: { pull_request_number: number; title: string; state: string }) => [p.pull_request_number, p.title, p.state]), [[77, 'Add a login page', 'OPEN']]);

    const replay = await send('github', opened);
    assert.match(replay.body.ignored, /already received/);
    assert.equal((await t.request('GET', `/environment/${previewed.body.id}/preview`, { token: org.token })).body.results.length, 1);

    const closed = await send('github', signed('github', otherDelivery('github-pr', web, head, { number: 77, action: 'closed', merged: true }), secret));
    assert.deepEqual(closed.body.previews.map((o: { outcome: string }) => o.outcome), ['closed'], closed.raw);
    await eventually(async () => (await t.request('GET', `/environment/${copyId}`, { token: org.token })).status === 404, 15_000);
    const after = await t.request('GET', `/environment/${previewed.body.id}/preview`, { token: org.token });
    assert.equal(after.body.results[0].state, 'CLOSED');
  });

  test('bad input is a 4xx with the error body: unknown provider, invalid JSON, no event header', async () => {
    const d = push('github', { web: 'https://github.com/acme/x', commit: sha() });
    expectErrorBody(await send('sourceforge', d), 400);
    const notJson = signed('github', { headers: d.headers, body: '{"ref": ' }, secret);
    expectErrorBody(await send('github', notJson), 400);
    const noEvent = signed('github', { headers: { 'content-type': 'application/json' }, body: '{}' }, secret);
    expectErrorBody(await send('github', noEvent), 400);
    expectErrorBody(await t.request('POST', `/gitWebhook/not-a-uuid/github`, { headers: d.headers, body: d.body }), 400);
    const { 'content-type': _json, ...bare } = d.headers;
    for (const headers of [bare, { ...d.headers, 'content-type': 'text/plain' }]) {
      const r = await t.request('POST', `/gitWebhook/${org.id}/github`, { headers, body: d.body });
      assert.equal(r.status, 200, `any content type: the signature is over the bytes (${r.raw})`);
    }
    const empty = await t.request('POST', `/gitWebhook/${org.id}/github`, { headers: { 'x-github-event': 'push' } });
    expectErrorBody(empty, 401);
    const big = signed('github', { headers: d.headers, body: JSON.stringify({ pad: 'x'.repeat(6 * 1024 * 1024) }) }, secret);
    expectErrorBody(await t.request('POST', `/gitWebhook/${org.id}/github`, { headers: big.headers, body: big.body }), 413);
  });

  test('a deleted secret refuses every delivery until a new one is made', async () => {
    const other = await seedOrganization(t);
    const otherEnv = await seedEnvironment(t, other);
    const web = `https://github.example.com/acme/rotated-${randomUUID().slice(0, 6)}`;
    const app = await t.request('POST', `/environment/${otherEnv.id}/application`, { token: other.token, body: { name: 'rotated', git_repository: { url: `${web}.git` } } });
    const first = (await t.request('POST', `/organization/${other.id}/gitWebhook`, { token: other.token })).body.secret;
    const second = (await t.request('POST', `/organization/${other.id}/gitWebhook`, { token: other.token })).body.secret;
    assert.notEqual(first, second);
    const send = (s: string) => { const d = signed('github', pushDelivery('github', { web, commit: sha() }), s); return t.request('POST', `/gitWebhook/${other.id}/github`, { headers: d.headers, body: d.body }); };
    expectErrorBody(await send(first), 401);
    assert.equal((await send(second)).status, 200);
    assert.equal((await t.request('DELETE', `/organization/${other.id}/gitWebhook`, { token: other.token })).status, 204);
    expectErrorBody(await send(second), 401);
    expectErrorBody(await t.request('DELETE', `/organization/${other.id}/gitWebhook`, { token: other.token }), 404);
    assert.equal((await t.request('GET', `/organization/${other.id}/gitWebhook`, { token: other.token })).body.secret_set, false);
    assert.equal((await deploymentsOf(app.body.id)).length, 1, 'only the delivery signed with the current secret');
  });

  test('every deployment a push queued is in the audit log: TRIGGER_DEPLOY, origin GIT, by the pusher', async () => {
    const web = `https://github.example.com/acme/audited-${randomUUID().slice(0, 6)}`;
    const app = await application(web);
    await send('github', push('github', { web, commit: sha(), pusher: 'auditee' }));
    const events = (await t.request('GET', `/organization/${org.id}/events?targetId=${app}&origin=GIT`, { token: org.token })).body.events;
    assert.equal(events.length, 1, JSON.stringify(events));
    assert.equal(events[0].event_type, 'TRIGGER_DEPLOY');
    assert.equal(events[0].triggered_by, 'auditee');
  });

  test('outside the environment\'s deployment window (auto_stop) the commit waits, then deploys once when it opens', async () => {
    const closedEnv = await seedEnvironment(t, org);
    const rule = (await t.request('GET', `/environment/${closedEnv.id}/deploymentRule`, { token: org.token })).body;
    // a weekday that is neither today nor tomorrow (UTC): closed now, whatever the hour
    const day = WEEKDAYS[(new Date().getUTCDay() + 2) % 7]!; // getUTCDay: 0 = Sunday; WEEKDAYS[0] = MONDAY
    const put = await t.request('PUT', `/environment/${closedEnv.id}/deploymentRule/${rule.id}`, {
      token: org.token, body: { timezone: 'UTC', start_time: '08:00', stop_time: '09:00', weekdays: [day], auto_stop: true },
    });
    assert.equal(put.status, 200, put.raw);
    const web = `https://github.example.com/acme/window-${randomUUID().slice(0, 6)}`;
    const app = await application(web, {}, closedEnv);
    const commit = sha();
    const r = await send('github', push('github', { web, commit, pusher: 'night-owl' }));
    assert.equal(r.body.results[0].outcome, 'waiting', r.raw);
    assert.match(r.body.results[0].reason, /deployment window/);
    assert.equal((await deploymentsOf(app)).length, 0);
    // 2026-03-02 is a Monday: the same weekday as `day`, at 08:30 UTC
    const opening = new Date(Date.UTC(2026, 2, 2 + WEEKDAYS.indexOf(day), 8, 30));
    const svc = t.ctx.services.gitPush;
    const tracked = await svc.tracked([org.id]);
    assert.deepEqual(await svc.releaseWaiting(tracked, [org.id], new Date(Date.UTC(2026, 2, 2 + WEEKDAYS.indexOf(day), 7, 30))), [], 'still closed at 07:30');
    const released = await svc.releaseWaiting(tracked, [org.id], opening);
    assert.deepEqual(released.map((o) => [o.service_id, o.outcome]), [[app, 'deployed']]);
    assert.deepEqual(await svc.releaseWaiting(tracked, [org.id], opening), [], 'once');
    assert.deepEqual((await deploymentsOf(app)).map((d) => [d.git_commit_id, d.origin, d.triggered_by]), [[commit, 'GIT', 'night-owl']]);
  });
});
