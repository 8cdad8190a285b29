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
  assert.deepEqual(gh.pullRequest, { number: 42, action: 'opened', targetBranch: 'main', title: 'Add a login page' });
  const gl = parse('gitlab', otherDelivery('gitlab-mr', WEB, COMMIT)).events[0]!;
  assert.deepEqual([gl.kind, gl.branch, gl.commit], ['pull_request', 'feature/login', COMMIT]);
  assert.deepEqual(gl.pullRequest, { number: 7, action: 'opened', targetBranch: 'main', title: 'Add a login page' });
  const bb = parse('bitbucket', otherDelivery('bitbucket-pr', WEB, COMMIT)).events[0]!;
  assert.deepEqual([bb.kind, bb.branch, bb.pullRequest?.action, bb.pullRequest?.targetBranch], ['pull_request', 'feature/login', 'opened', 'main']);
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
