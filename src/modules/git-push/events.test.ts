// Each provider's deliveries read into normalized events (pure): the push's repository URLs,
// branch, commit, pusher, author and message; deleted branches, tags, pull requests and pings;
// GitHub's form-encoded payloads; bad bodies and missing event headers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { otherDelivery, pushDelivery } from '../../../test/git-push/fixtures.ts';
import { parseDelivery } from './events.ts';
import { repositoryKey } from './git-push.rules.ts';
import { GIT_WEBHOOK_PROVIDERS, type GitWebhookProvider } from './signatures.ts';

const COMMIT = '9fceb02d0ae598e95dc970b74767f19372d61af8';
const WEB = 'https://git.example.com/acme/shop';
const parse = (provider: GitWebhookProvider, d: { headers: Record<string, string>; body: string }) => parseDelivery(provider, d.headers, Buffer.from(d.body));

const PUSHERS: Record<GitWebhookProvider, string> = { github: 'octocat', gitlab: 'jsmith', bitbucket: 'jdoe', gitea: 'gitea', forgejo: 'gitea' };

for (const provider of GIT_WEBHOOK_PROVIDERS) {
  test(`${provider}: a push is the branch, its new head, the pusher, the head's author and message`, () => {
    const parsed = parse(provider, pushDelivery(provider, { web: WEB, branch: 'release/2.x', commit: COMMIT, message: 'Fix the checkout\n\nLonger body', deliveryId: 'd-1' }));
    assert.equal(parsed.deliveryId, 'd-1');
    assert.equal(parsed.events.length, 1);
    const e = parsed.events[0]!;
    assert.equal(e.kind, 'push');
    assert.equal(e.branch, 'release/2.x');
    assert.equal(e.commit, COMMIT);
    assert.equal(e.deleted, false);
    assert.equal(e.pusher, PUSHERS[provider]);
    assert.equal(e.author, 'Jane Doe <jane@example.com>');
    assert.match(e.message!, /^Fix the checkout/);
    assert.ok(e.repositoryUrls.map(repositoryKey).includes('git.example.com/acme/shop'), e.repositoryUrls.join(' '));
    assert.equal(e.pullRequest, null);
  });

  test(`${provider}: a push that deletes the branch says so`, () => {
    const e = parse(provider, pushDelivery(provider, { web: WEB, commit: COMMIT, deleted: true })).events[0]!;
    assert.equal(e.kind, 'push');
    assert.equal(e.deleted, true);
  });
}

test('tags are tag pushes, not branch pushes', () => {
  const d = pushDelivery('github', { web: WEB, commit: COMMIT });
  const e = parse('github', { ...d, body: d.body.replace('"refs/heads/main"', '"refs/tags/v1.0.0"') }).events[0]!;
  assert.equal(e.kind, 'tag_push');
  assert.equal(e.branch, null);
  const gl = pushDelivery('gitlab', { web: WEB, commit: COMMIT });
  const tag = parse('gitlab', { headers: { ...gl.headers, 'x-gitlab-event': 'Tag Push Hook' }, body: gl.body.replace('"object_kind":"push"', '"object_kind":"tag_push"') });
  assert.equal(tag.events[0]!.kind, 'tag_push');
});

test('a Bitbucket push of several branches is one event per branch', () => {
  const d = pushDelivery('bitbucket', { web: WEB, commit: COMMIT });
  const body = JSON.parse(d.body);
  const second = structuredClone(body.push.changes[0]);
  second.new.name = 'develop';
  second.new.target.hash = 'f'.repeat(40);
  const tag = { new: { type: 'tag', name: 'v1', target: { hash: COMMIT } }, old: null, closed: false };
  body.push.changes.push(second, tag);
  const events = parse('bitbucket', { headers: d.headers, body: JSON.stringify(body) }).events;
  assert.deepEqual(events.map((e) => [e.kind, e.branch, e.commit]), [['push', 'main', COMMIT], ['push', 'develop', 'f'.repeat(40)], ['tag_push', null, null]]);
});

test('pull and merge requests are normalized for preview environments', () => {
  const gh = parse('github', otherDelivery('github-pr', WEB, COMMIT)).events[0]!;
  assert.equal(gh.kind, 'pull_request');
  assert.deepEqual([gh.branch, gh.commit, gh.pusher], ['feature/login', COMMIT, 'octocat']);
  assert.deepEqual(gh.pullRequest, { number: 42, action: 'opened', targetBranch: 'main', title: 'Add a login page', fork: false, body: null });
  const gl = parse('gitlab', otherDelivery('gitlab-mr', WEB, COMMIT)).events[0]!;
  assert.deepEqual([gl.kind, gl.branch, gl.commit], ['pull_request', 'feature/login', COMMIT]);
  assert.deepEqual(gl.pullRequest, { number: 7, action: 'opened', targetBranch: 'main', title: 'Add a login page', fork: false, body: null });
  const bb = parse('bitbucket', otherDelivery('bitbucket-pr', WEB, COMMIT)).events[0]!;
  assert.deepEqual([bb.kind, bb.branch, bb.pullRequest?.action, bb.pullRequest?.targetBranch], ['pull_request', 'feature/login', 'opened', 'main']);
});

test('each provider says whether a pull request comes from a fork, and gives its description', () => {
  for (const kind of ['github-pr', 'gitlab-mr', 'bitbucket-pr'] as const) {
    const provider = kind === 'github-pr' ? 'github' : kind === 'gitlab-mr' ? 'gitlab' : 'bitbucket';
    const own = parse(provider, otherDelivery(kind, WEB, COMMIT, { body: 'Adds **login**' })).events[0]!.pullRequest!;
    assert.deepEqual([own.fork, own.body], [false, 'Adds **login**'], kind);
    const fork = parse(provider, otherDelivery(kind, WEB, COMMIT, { fork: 'stranger/shop' })).events[0]!.pullRequest!;
    assert.deepEqual([fork.fork, fork.body], [true, null], `${kind}: an empty description is none`);
  }
});

test('GitHub: a deleted fork (head.repo null) is a fork; the same repository by id is not, whatever its name\'s case', () => {
  const d = otherDelivery('github-pr', WEB, COMMIT);
  const body = JSON.parse(d.body);
  body.pull_request.head.repo = null;
  assert.equal(parse('github', { headers: d.headers, body: JSON.stringify(body) }).events[0]!.pullRequest!.fork, true);
  body.pull_request.head.repo = { id: 1001, full_name: 'ACME/Shop-renamed' };
  assert.equal(parse('github', { headers: d.headers, body: JSON.stringify(body) }).events[0]!.pullRequest!.fork, false, 'ids win over names');
  body.pull_request.head.repo = { full_name: 'Acme/Shop' };
  body.pull_request.base.repo = { full_name: 'acme/shop' };
  assert.equal(parse('github', { headers: d.headers, body: JSON.stringify(body) }).events[0]!.pullRequest!.fork, false, 'names without case');
});

test('Gitea and Forgejo: head.repo_id (or head.repo.id) against base.repo_id (or base.repo.id)', () => {
  const payload = (head: object, base: object) => JSON.stringify({
    action: 'opened', number: 5, repository: { clone_url: `${WEB}.git`, html_url: WEB }, sender: { login: 'gitea' },
    pull_request: { number: 5, title: 'Fix', body: 'Why and how', head: { ref: 'fix', sha: COMMIT, ...head }, base: { ref: 'main', ...base } },
  });
  for (const provider of ['gitea', 'forgejo'] as const) {
    const headers = { 'content-type': 'application/json', [`x-${provider}-event`]: 'pull_request' };
    const read = (head: object, base: object) => parse(provider, { headers, body: payload(head, base) }).events[0]!.pullRequest!;
    assert.deepEqual([read({ repo_id: 3, repo: { id: 3 } }, { repo_id: 3, repo: { id: 3 } }).fork, read({ repo_id: 3 }, { repo_id: 3 }).body], [false, 'Why and how']);
    assert.equal(read({ repo_id: 9, repo: { id: 9, full_name: 'stranger/shop' } }, { repo_id: 3, repo: { id: 3, full_name: 'acme/shop' } }).fork, true, provider);
    assert.equal(read({ repo: { id: 9 } }, { repo: { id: 3 } }).fork, true, `${provider}: repo.id when repo_id is absent`);
  }
});

test('GitLab: source_project_id against target_project_id; Bitbucket: a deleted source repository is a fork', () => {
  const gl = JSON.parse(otherDelivery('gitlab-mr', WEB, COMMIT).body);
  gl.object_attributes.source_project_id = 40;
  gl.object_attributes.source = { path_with_namespace: 'acme/shop' };
  const glHeaders = otherDelivery('gitlab-mr', WEB, COMMIT).headers;
  assert.equal(parse('gitlab', { headers: glHeaders, body: JSON.stringify(gl) }).events[0]!.pullRequest!.fork, true, 'the project ids decide');
  const bb = otherDelivery('bitbucket-pr', WEB, COMMIT);
  const body = JSON.parse(bb.body);
  body.pullrequest.source.repository = null;
  assert.equal(parse('bitbucket', { headers: bb.headers, body: JSON.stringify(body) }).events[0]!.pullRequest!.fork, true);
  body.pullrequest.source.repository = { full_name: 'ACME/SHOP' };
  body.pullrequest.destination.repository = { full_name: 'acme/shop' };
  assert.equal(parse('bitbucket', { headers: bb.headers, body: JSON.stringify(body) }).events[0]!.pullRequest!.fork, false);
});

test('a GitHub ping is a ping; an unknown event is "other"', () => {
  assert.equal(parse('github', otherDelivery('github-ping', WEB, COMMIT)).events[0]!.kind, 'ping');
  const d = pushDelivery('github', { web: WEB, commit: COMMIT });
  assert.equal(parse('github', { headers: { ...d.headers, 'x-github-event': 'star' }, body: d.body }).events[0]!.kind, 'other');
});

test('GitHub\'s form-encoded content type (payload=<JSON>) reads the same', () => {
  const d = pushDelivery('github', { web: WEB, commit: COMMIT });
  const form = new URLSearchParams({ payload: d.body }).toString();
  const e = parse('github', { headers: { ...d.headers, 'content-type': 'application/x-www-form-urlencoded' }, body: form }).events[0]!;
  assert.deepEqual([e.kind, e.branch, e.commit], ['push', 'main', COMMIT]);
});

test('a body that is not a JSON object, or a delivery without its event header, is a 400', () => {
  const d = pushDelivery('gitea', { web: WEB, commit: COMMIT });
  assert.throws(() => parse('gitea', { headers: d.headers, body: '{"ref":' }), { status: 400, message: /not valid JSON/ });
  assert.throws(() => parse('gitea', { headers: d.headers, body: '[1]' }), { status: 400, message: /JSON object/ });
  assert.throws(() => parse('gitlab', { headers: { 'content-type': 'application/json' }, body: '{}' }), { status: 400, message: /x-gitlab-event/ });
});
