import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  agentRunOf, describeVerdict, apiBase, classifyAnswer, escapeMarkdown, outcomeAt, renderComment, reportOrigin, repositoryPath, retryDelay, safeUrl, stageOf, stagesToPost,
  PROVIDER_STATES,
} from './provider-status.rules.ts';

const SHA = 'a'.repeat(40);

test('reported: a push\'s or a preview\'s deployment of a known commit; not one started by hand, nor a stop', () => {
  assert.equal(reportOrigin({ action: 'DEPLOY', git_commit_id: SHA, metadata: { git: { provider: 'Forgejo' } } })?.provider, 'GITEA');
  const p = reportOrigin({ action: 'DEPLOY', git_commit_id: SHA, metadata: { preview: { preview_id: 'x', provider: 'GITLAB', pull_request_number: 3 } } });
  assert.deepEqual([p?.kind, p?.provider, p?.pullRequestNumber], ['preview', 'GITLAB', 3]);
  assert.equal(reportOrigin({ action: 'DEPLOY', git_commit_id: SHA, metadata: {} }), null);
  assert.equal(reportOrigin({ action: 'DEPLOY', git_commit_id: null, metadata: { preview: { preview_id: 'x' } } }), null);
  assert.equal(reportOrigin({ action: 'STOP', git_commit_id: SHA, metadata: { git: {} } }), null);
});

test('stages: each once, in order, never backwards; the outcome at each', () => {
  assert.equal(stageOf({ status: 'QUEUED', finished: false }), 'QUEUED');
  assert.equal(stageOf({ status: 'BUILDING', finished: false }), 'IN_PROGRESS');
  assert.deepEqual(stagesToPost(null, 'DONE'), ['QUEUED', 'IN_PROGRESS', 'DONE']);
  assert.deepEqual(stagesToPost('IN_PROGRESS', 'DONE'), ['DONE']);
  assert.deepEqual(stagesToPost('DONE', 'IN_PROGRESS'), []);
  assert.deepEqual(['DEPLOYED', 'BUILD_ERROR', 'CANCELED'].map((s) => outcomeAt('DONE', s)), ['success', 'failure', 'canceled']);
  assert.deepEqual(Object.values(PROVIDER_STATES.BITBUCKET), ['INPROGRESS', 'INPROGRESS', 'SUCCESSFUL', 'FAILED', 'STOPPED']);
});

test('API base: git_api_url when set, else the public API; Gitea on the repository\'s host', () => {
  assert.equal(apiBase('GITHUB', 'https://github.com/a/b', ''), 'https://api.github.com');
  assert.equal(apiBase('GITHUB', 'https://ghe.corp/a/b', 'https://ghe.corp/api/v3/'), 'https://ghe.corp/api/v3');
  assert.equal(apiBase('GITLAB', 'git@gitlab.com:g/s/p.git', ''), 'https://gitlab.com/api/v4');
  assert.equal(apiBase('BITBUCKET', 'https://bitbucket.org/w/r', ''), 'https://api.bitbucket.org/2.0');
  assert.equal(apiBase('GITEA', 'https://codeberg.org/a/b.git', ''), 'https://codeberg.org/api/v1');
  assert.deepEqual(repositoryPath('git@gitlab.com:Group/Sub/Proj.git'), { scheme: 'https', host: 'gitlab.com', path: 'Group/Sub/Proj' });
  assert.equal(repositoryPath('https://github.com/only'), null);
});

test('answers and retries', () => {
  assert.deepEqual([201, 401, 403, 404, 422, 500, null].map(classifyAnswer), ['ok', 'denied', 'denied', 'denied', 'retry', 'retry', 'retry']);
  const s = { firstDelayMs: 1000, maxDelayMs: 5000, maxAttempts: 4 };
  assert.deepEqual([1, 2, 3, 4].map((n) => retryDelay(n, s)), [1000, 2000, 4000, null]);
});

test('the comment escapes every user-controlled string and keeps only http(s) links', () => {
  assert.equal(escapeMarkdown('a|b <script>*x*'), 'a\\|b &lt;script&gt;\\*x\\*');
  assert.equal(safeUrl('javascript:alert(1)'), null);
  assert.equal(safeUrl('http://x.test/a(b)'), 'http://x.test/a%28b%29');
  const body = renderComment({
    environmentName: 'pr-<7>', state: 'OPEN', message: null, headCommit: SHA,
    rows: [{ service: 'web|[x](javascript:y)', url: 'http://web.test', status: 'BUILD_ERROR', commit: SHA, message: 'boom <img>' }],
  });
  assert.ok(body.includes('| web\\|\\[x\\]\\(javascript\\:y\\) |'), body);
  assert.ok(body.includes('❌ Failed: boom &lt;img&gt;'));
  assert.ok(!/<img|<7>/.test(body));
  assert.match(renderComment({ environmentName: null, state: 'CLOSED', message: 'closed', headCommit: SHA, rows: [] }), /\*\*Closed\*\*: closed/);
});

test('an agent run per pull request: told by its metadata; its verdict is the first line of its answer, cut for the provider', () => {
  assert.deepEqual(agentRunOf({ metadata: { agentic_workflow_run_id: 'r1', agent: { workflow_name: 'reviewer' } } }), { runId: 'r1', workflowName: 'reviewer' });
  assert.equal(agentRunOf({ metadata: { agentic_workflow_run_id: 'r1' } }), null, 'a run that is no pull request\'s');
  assert.equal(agentRunOf({ metadata: { preview: { preview_id: 'p' } } }), null);
  assert.equal(describeVerdict('success', { result: '\n  LGTM: login works\nDetails below', message: null }), 'LGTM: login works');
  assert.equal(describeVerdict('failure', { result: null, message: 'The agent stopped at its turn cap' }), 'Agent run failed: The agent stopped at its turn cap');
  assert.equal(describeVerdict('canceled', { result: null, message: 'A newer commit was pushed' }), 'Agent run canceled: A newer commit was pushed');
  assert.equal(describeVerdict('queued', null), 'Agent run queued in berth');
  assert.equal(describeVerdict('success', { result: 'x'.repeat(300), message: null }).length, 140);
});

test('the comment lists agent runs with their verdict escaped, under the services; a closed preview keeps them', () => {
  const agents = [{ workflow: 'reviewer', status: 'SUCCEEDED', verdict: '<img src=x> **ok**', commit: SHA, url: 'http://berth.test/ui/workflows/w/runs/r' }];
  const open = renderComment({ environmentName: 'staging-pr-1', state: 'OPEN', message: null, headCommit: SHA, rows: [], agents });
  assert.match(open, /#### Agent runs/);
  assert.match(open, /\| \[reviewer\]\(http:\/\/berth\.test\/ui\/workflows\/w\/runs\/r\) \| ✅ Done \| &lt;img src=x&gt; \\\*\\\*ok\\\*\\\* \| `aaaaaaa` \|/);
  assert.doesNotMatch(open, /<img/);
  const closed = renderComment({ environmentName: 'staging-pr-1', state: 'CLOSED', message: 'closed', headCommit: SHA, rows: [], agents });
  assert.match(closed, /\*\*Closed\*\*[\s\S]*#### Agent runs/);
  assert.doesNotMatch(renderComment({ environmentName: null, state: 'OPEN', message: null, headCommit: SHA, rows: [] }), /Agent runs/);
});
