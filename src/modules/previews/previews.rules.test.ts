import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../lib/errors.ts';
import {
  approvalMessage, BODY_MAX_BYTES, capMessage, checkPullRequestEvent, cutText, deploymentOrder, gitSourceOf, previewedBy, previewEnabled, previewEnvironmentName, previewLogLines,
  type PullRequestEvent,
} from './previews.rules.ts';

const SHA = 'a'.repeat(40);
const event = (over: Partial<PullRequestEvent> = {}): PullRequestEvent => ({
  provider: 'GITHUB', action: 'opened', number: 7, title: '  Add\nlogin  ', repositoryUrls: ['https://github.com/Acme/Shop.git', 'git@github.com:acme/shop.git'],
  baseBranch: 'main', headBranch: 'feature/login', headCommit: SHA.toUpperCase(), author: 'octocat', fork: false, body: null, ...over,
});

test('an event is tidied: title on one line, commit in lower case, one repository key for its URLs', () => {
  const { event: e, repositoryKeys } = checkPullRequestEvent(event());
  assert.equal(e.title, 'Add login');
  assert.equal(e.headCommit, SHA);
  assert.deepEqual([...repositoryKeys], ['github.com/acme/shop']);
});

test('a short commit (Bitbucket) is taken; a close needs none', () => {
  assert.equal(checkPullRequestEvent(event({ headCommit: 'D3022FC0CA3D' })).event.headCommit, 'd3022fc0ca3d');
  assert.equal(checkPullRequestEvent(event({ action: 'closed', headCommit: '' })).event.headCommit, '');
});

test('a malformed event is a 400 naming the member', () => {
  const bad: Array<[Partial<PullRequestEvent>, RegExp]> = [
    [{ provider: 'SVN' as never }, /^provider/], [{ action: 'edited' as never }, /^action/], [{ number: 0 }, /^number/], [{ number: 1.5 }, /^number/],
    [{ baseBranch: '' }, /^baseBranch/], [{ headBranch: 'a..b' }, /^headBranch/], [{ headBranch: 'x y' }, /^headBranch/],
    [{ headCommit: 'abc12' }, /^headCommit/], [{ headCommit: 'main' }, /^headCommit/], [{ repositoryUrls: [] }, /^repositoryUrls/], [{ repositoryUrls: ['   '] }, /^repositoryUrls/], [{ organizationId: 'acme' }, /^organizationId/],
  ];
  for (const [over, message] of bad) {
    assert.throws(() => checkPullRequestEvent(event(over)), (err: unknown) => err instanceof AppError && err.status === 400 && message.test(err.message), JSON.stringify(over));
  }
});

test('git sources: applications and git jobs; auto_preview is the service\'s own, else the environment\'s', () => {
  assert.deepEqual(gitSourceOf('APPLICATION', { git_repository: { url: 'https://x/y.git' } }), { url: 'https://x/y.git', branch: 'main' });
  assert.deepEqual(gitSourceOf('JOB', { source: { docker: { git_repository: { url: 'https://x/y', branch: 'dev' } } } }), { url: 'https://x/y', branch: 'dev' });
  assert.equal(gitSourceOf('JOB', { source: { image: { image_name: 'x' } } }), null);
  assert.equal(gitSourceOf('CONTAINER', { git_repository: { url: 'https://x/y' } }), null);
  assert.equal(previewEnabled({}, true), true);
  assert.equal(previewEnabled({ auto_preview: false }, true), false);
  assert.equal(previewEnabled({ auto_preview: true }, false), true);
});

test('a service is previewed when its repository (any spelling) and tracked branch match and auto_preview is on', () => {
  const keys = checkPullRequestEvent(event()).repositoryKeys;
  const app = (url: string, branch: string, autoPreview?: boolean, envAuto = true) => ({
    id: 'x', type: 'APPLICATION', environment_auto_preview: envAuto, spec: { git_repository: { url, branch }, ...(autoPreview === undefined ? {} : { auto_preview: autoPreview }) },
  });
  assert.equal(previewedBy(app('https://GitHub.com/acme/shop/', 'main'), keys, 'main'), true);
  assert.equal(previewedBy(app('ssh://git@github.com:22/acme/shop.git', 'main', true, false), keys, 'main'), true);
  assert.equal(previewedBy(app('https://github.com/acme/shop', 'develop'), keys, 'main'), false);
  assert.equal(previewedBy(app('https://github.com/acme/other', 'main'), keys, 'main'), false);
  assert.equal(previewedBy(app('https://github.com/acme/shop', 'main', false), keys, 'main'), false);
  assert.equal(previewedBy(app('https://github.com/acme/shop', 'main', undefined, false), keys, 'main'), false);
});

test('the copy is named after the pull request, unique in the project, at most 255 characters', () => {
  assert.equal(previewEnvironmentName('staging', 12, new Set()), 'staging-pr-12');
  assert.equal(previewEnvironmentName('Staging', 12, new Set(['staging-pr-12', 'staging-pr-12-2'])), 'Staging-pr-12-3');
  const long = previewEnvironmentName('e'.repeat(300), 5, new Set());
  assert.equal(long.length, 255);
  assert.ok(long.endsWith('-pr-5'));
});

test('a copy deploys databases, containers, applications, jobs, others; never agentic workflows', () => {
  const at = (n: number) => new Date(2026, 0, n);
  const order = deploymentOrder([
    { id: 'j', type: 'JOB', created_at: at(1) }, { id: 'a2', type: 'APPLICATION', created_at: at(3) }, { id: 'w', type: 'AGENTIC_WORKFLOW', created_at: at(1) },
    { id: 'a1', type: 'APPLICATION', created_at: at(2) }, { id: 'd', type: 'DATABASE', created_at: at(9) }, { id: 'h', type: 'HELM', created_at: at(1) },
    { id: 'c', type: 'CONTAINER', created_at: at(5) },
  ]);
  assert.deepEqual(order.map((s) => s.id), ['d', 'c', 'a1', 'a2', 'j', 'h']);
});

test('words: the log\'s first lines and the refusal', () => {
  const e = checkPullRequestEvent(event()).event;
  assert.deepEqual(previewLogLines(e, true), ['Preview of GitHub pull request #7 "Add login" (feature/login into main)', `Commit ${SHA} of feature/login by octocat`]);
  assert.match(previewLogLines({ ...e, provider: 'GITLAB' }, false)[0]!, /^Preview of GitLab merge request !7/);
  assert.match(capMessage(e, 'staging', 2), /environment "staging" already has 2 open previews, the most allowed \(PREVIEW_MAX_PER_ENVIRONMENT=2\)/);
  assert.match(capMessage(e, 'staging', 0), /previews are turned off/);
});

test('a fork and a description: not a fork unless said; the description kept up to 64 KiB of UTF-8, NUL characters dropped', () => {
  const { fork, body } = checkPullRequestEvent({ ...event(), fork: undefined, body: undefined }).event;
  assert.deepEqual([fork, body], [false, null]);
  assert.deepEqual([checkPullRequestEvent(event({ fork: true, body: '  \n ' })).event.fork, checkPullRequestEvent(event({ body: '  \n ' })).event.body], [true, null]);
  assert.equal(checkPullRequestEvent(event({ body: 'Fixes\u0000 #3' })).event.body, 'Fixes #3');
  const long = checkPullRequestEvent(event({ body: 'é'.repeat(40_000) })).event.body!;
  assert.equal(Buffer.byteLength(long), BODY_MAX_BYTES);
  assert.equal(long, 'é'.repeat(BODY_MAX_BYTES / 2));
  const odd = cutText(`a${'é'.repeat(40_000)}`, BODY_MAX_BYTES);
  assert.equal(odd, `a${'é'.repeat(BODY_MAX_BYTES / 2 - 1)}`, 'a character cut in half is dropped');
  assert.throws(() => checkPullRequestEvent({ ...event(), fork: 'yes' as unknown as boolean }), (err: unknown) => err instanceof AppError && err.status === 400 && /fork/.test(err.message));
  assert.throws(() => checkPullRequestEvent({ ...event(), body: 42 as unknown as string }), (err: unknown) => err instanceof AppError && err.status === 400 && /body/.test(err.message));
});

test('words: who may approve a fork\'s pull request and how; a kept copy stays at the approved commit', () => {
  const e = { provider: 'GITLAB' as const, number: 4, title: 'Fix', headCommit: 'c'.repeat(40) };
  const env = { id: 'e1', name: 'staging' };
  const none = approvalMessage(e, env, 'p1', null);
  assert.match(none, /^GitLab merge request !4 "Fix" comes from a fork: berth makes no preview of it and runs nothing/);
  assert.match(none, /\(DevOps and above\) approves head commit cccccccccccc: POST \/environment\/e1\/preview\/p1\/approve, `berth preview approve p1 --environment e1`, or Approve/);
  const kept = approvalMessage(e, env, 'p1', { name: 'staging-pr-4', approvedCommit: 'd'.repeat(40) });
  assert.match(kept, /its preview environment "staging-pr-4" stays at the approved commit dddddddddddd, not redeployed with unreviewed code, until someone/);
  assert.match(kept, /each new commit of the pull request waits for approval again\.$/);
});
