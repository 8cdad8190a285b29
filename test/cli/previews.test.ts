// `berth status` and preview environments: an environment lists its previews (the copy, the pull
// request, branch, commit, state and why); a preview environment says which pull request of
// which environment it previews; --json carries the same.
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
});
