// `berth status` and preview environments: an environment lists its previews (the copy, the pull
// request, branch, commit, state and why); a preview environment says which pull request of
// which environment it previews; --json carries the same. `berth previews` lists them, and
// `berth preview approve` approves the head commit of a pull request from a fork (decision 0748).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { berth, seedShop, startCliServer, type CliServer } from './support.ts';

describe('berth status marks preview environments', () => {
  let s: CliServer;
  let shop: Awaited<ReturnType<typeof seedShop>>;
  let copyId: string;
  let env: Record<string, string>;

  before(async () => {
    s = await startCliServer();
    shop = await seedShop(s, { project: `preview-${Date.now()}`, environment: 'staging' }, ['web']);
    const put = await s.t.request('PUT', `/application/${shop.ids.web}`, { token: s.org.token, body: { auto_preview: true } });
    assert.equal(put.status, 200, put.raw);
    const [opened] = await s.t.ctx.services.previews.onPullRequest({
      provider: 'GITHUB', action: 'opened', number: 42, title: 'Faster search', repositoryUrls: ['https://github.com/example/app'],
      baseBranch: 'main', headBranch: 'search', headCommit: 'abcdef1'.padEnd(40, '0'), author: 'octocat', organizationId: s.org.id,
    });
    assert.equal(opened!.outcome, 'created');
    copyId = opened!.preview_environment_id!;
    env = { BERTH_URL: s.url, BERTH_TOKEN: s.org.token };
  });
  after(async () => { await s.close(); });

  test('the source lists its previews; the copy says what it previews', async () => {
    const source = await berth(s.newConfigDir(), ['status', '--project', shop.projectId, '--environment', shop.environmentId], { env });
    assert.equal(source.code, 0, source.stderr);
    assert.match(source.stdout, /PREVIEW\s+PULL REQUEST\s+BRANCH\s+COMMIT\s+STATE/);
    assert.match(source.stdout, /staging-pr-42\s+#42 Faster search\s+search\s+abcdef1\s+OPEN/);
    assert.doesNotMatch(source.stdout, /^preview of/m);

    const copy = await berth(s.newConfigDir(), ['status', '--project', shop.projectId, '--environment', copyId], { env });
    assert.equal(copy.code, 0, copy.stderr);
    assert.match(copy.stdout, /^environment staging-pr-42 \(project preview-\d+, organization [^)]+\)\npreview of pull request #42 "Faster search" \(search at abcdef1\) of staging\n/);
    assert.match(copy.stdout, /web\s+application/);
    assert.doesNotMatch(copy.stdout, /PULL REQUEST/);

    const json = JSON.parse((await berth(s.newConfigDir(), ['status', '--json', '--project', shop.projectId, '--environment', copyId], { env })).stdout);
    assert.equal(json.environment.mode, 'PREVIEW');
    assert.deepEqual(json.preview_of.environment, { id: shop.environmentId, name: 'staging' });
    assert.equal(json.preview_of.pull_request.pull_request_number, 42);
    const sourceJson = JSON.parse((await berth(s.newConfigDir(), ['status', '--json', '--project', shop.projectId, '--environment', shop.environmentId], { env })).stdout);
    assert.deepEqual([sourceJson.environment.mode, sourceJson.preview_of, sourceJson.previews.map((p: { preview_environment_id: string }) => p.preview_environment_id)],
      ['DEVELOPMENT', null, [copyId]]);
  });

  test('a pull request from a fork waits; berth previews says how to approve; berth preview approve opens it (DevOps and above, once per commit)', async () => {
    const [waiting] = await s.t.ctx.services.previews.onPullRequest({
      provider: 'GITHUB', action: 'opened', number: 43, title: 'Typo', repositoryUrls: ['https://github.com/example/app'],
      baseBranch: 'main', headBranch: 'typo', headCommit: 'f0f0f0f'.padEnd(40, '1'), author: 'stranger', organizationId: s.org.id, fork: true,
    });
    assert.equal(waiting!.outcome, 'awaiting_approval');
    const id = waiting!.preview_id!;
    const target = ['--project', shop.projectId, '--environment', shop.environmentId];

    const listed = await berth(s.newConfigDir(), ['previews', ...target], { env });
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /ID\s+PULL REQUEST\s+BRANCH\s+COMMIT\s+STATE\s+PREVIEW ENVIRONMENT/);
    assert.match(listed.stdout, new RegExp(`${id.slice(0, 8)}\\s+#43 Typo\\s+typo\\s+f0f0f0f\\s+AWAITING_APPROVAL\\s+none`));
    assert.match(listed.stdout, /staging-pr-42/);
    assert.ok(listed.stdout.includes(`1 pull request from a fork waits for approval`), listed.stdout);
    assert.ok(listed.stdout.includes(`berth preview approve ${id} --environment ${shop.environmentId}`), listed.stdout);
    const status = await berth(s.newConfigDir(), ['status', ...target], { env });
    assert.ok(status.stdout.includes(`AWAITING_APPROVAL (from a fork) berth preview approve ${id} --environment ${shop.environmentId}`), status.stdout);

    // a VIEWER may not (exit 4, the API's words); an unknown number names nothing (exit 4)
    const viewer = await berth(s.newConfigDir(), ['preview', 'approve', '#43', ...target], { env: { ...env, BERTH_TOKEN: await s.org.tokenFor('VIEWER') } });
    assert.equal(viewer.code, 4, viewer.stderr);
    assert.match(viewer.stderr, /^berth: /);
    const unknown = await berth(s.newConfigDir(), ['preview', 'approve', '#99', ...target], { env });
    assert.equal(unknown.code, 4, unknown.stderr);
    assert.match(unknown.stderr, /no preview "#99" of environment staging/);

    // the command the API's message gives: the preview's id and the environment's id, nothing else
    const approved = await berth(s.newConfigDir(), ['preview', 'approve', id, '--environment', shop.environmentId], { env });
    assert.equal(approved.code, 0, approved.stderr);
    assert.equal(approved.stdout, 'approved pull request #43 "Typo" at f0f0f0f: preview staging-pr-43 OPEN, deploying typo (a new commit waits for approval again)\n');
    const json = JSON.parse((await berth(s.newConfigDir(), ['previews', '--json', '--environment', shop.environmentId], { env })).stdout);
    const row = json.find((p: { id: string }) => p.id === id);
    assert.deepEqual([row.state, row.from_fork, row.approved_by.startsWith('token '), row.preview_environment_name], ['OPEN', true, true, 'staging-pr-43']);

    // approving it again: nothing awaits approval (409, exit 1)
    const again = await berth(s.newConfigDir(), ['preview', 'approve', id.slice(0, 8), ...target], { env });
    assert.equal(again.code, 1, again.stderr);
    assert.match(again.stderr, /is OPEN, not AWAITING_APPROVAL/);
  });
});
