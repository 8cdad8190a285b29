// The pure rules of deploy on push: one key per repository whatever its URL's spelling, what a
// service tracks, the deployment window, ls-remote output, the poller's first look, back-off,
// and the log's first lines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  backoffSeconds, branchOfRef, commitLogLines, firstSight, isNullCommit, parseLsRemote, repositoryKey, trackedSource, windowOpen, type WindowRule,
} from './git-push.rules.ts';

test('repository keys: https, ssh, scp-like and git:// spellings of one repository are one key', () => {
  const same = [
    'https://github.com/Acme/Shop.git', 'https://github.com/acme/shop', 'https://token:x@github.com/acme/shop.git/', 'git@github.com:acme/shop.git',
    'ssh://git@github.com:22/acme/shop.git', 'git://github.com/acme/shop', 'http://github.com:80//acme/shop.git',
  ];
  for (const url of same) assert.equal(repositoryKey(url), 'github.com/acme/shop', url);
  assert.equal(repositoryKey('https://gitlab.com/group/sub/app.git'), 'gitlab.com/group/sub/app');
  assert.notEqual(repositoryKey('https://gitlab.com/group/app'), repositoryKey('https://github.com/group/app'));
  assert.equal(repositoryKey('/srv/git/web.git'), 'local:/srv/git/web');
  assert.equal(repositoryKey('file:///srv/git/web.git'), 'local:/srv/git/web');
  assert.equal(repositoryKey(''), null);
  assert.equal(repositoryKey('https://github.com/'), null);
});

test('refs: branches only; the all-zero commit is a deleted branch', () => {
  assert.equal(branchOfRef('refs/heads/feature/x'), 'feature/x');
  assert.equal(branchOfRef('refs/tags/v1'), null);
  assert.equal(branchOfRef('main'), null);
  assert.equal(isNullCommit('0'.repeat(40)), true);
  assert.equal(isNullCommit('a'.repeat(40)), false);
});

test('tracked source: applications (auto_deploy defaults to true) and jobs built from git with auto_deploy true', () => {
  const repo = { url: 'https://github.com/acme/shop.git', branch: 'prod', git_token_id: null };
  assert.deepEqual(trackedSource('APPLICATION', { git_repository: repo }), { url: repo.url, branch: 'prod', gitTokenId: null });
  assert.deepEqual(trackedSource('APPLICATION', { git_repository: { url: repo.url }, auto_deploy: true }), { url: repo.url, branch: 'main', gitTokenId: null });
  assert.equal(trackedSource('APPLICATION', { git_repository: repo, auto_deploy: false }), null);
  assert.equal(trackedSource('APPLICATION', { git_repository: repo, auto_deploy: null }), null);
  assert.equal(trackedSource('APPLICATION', { git_repository: { url: '' } }), null);
  assert.deepEqual(trackedSource('JOB', { source: { docker: { git_repository: { ...repo, git_token_id: 'tok' } } }, auto_deploy: true }),
    { url: repo.url, branch: 'prod', gitTokenId: 'tok' });
  assert.equal(trackedSource('JOB', { source: { docker: { git_repository: repo } } }), null, 'a job deploys on push only when it says so');
  assert.equal(trackedSource('JOB', { source: { image: { image_name: 'x', tag: '1' } }, auto_deploy: true }), null);
  assert.equal(trackedSource('CONTAINER', { auto_deploy: true }), null);
});

test('deployment window: only a rule with auto_stop closes it; weekdays and [start, stop) in the rule\'s time zone', () => {
  const rule: WindowRule = { timezone: 'Europe/Paris', start_time: '08:00', stop_time: '19:00', weekdays: ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY'], auto_stop: true };
  // Monday 2026-03-02: 07:30 UTC is 08:30 in Paris
  assert.equal(windowOpen(rule, new Date('2026-03-02T07:30:00Z')), true);
  assert.equal(windowOpen(rule, new Date('2026-03-02T06:59:00Z')), false, '07:59 in Paris');
  assert.equal(windowOpen(rule, new Date('2026-03-02T18:00:00Z')), false, '19:00 in Paris: the stop minute is outside');
  assert.equal(windowOpen(rule, new Date('2026-03-07T10:00:00Z')), false, 'a Saturday');
  assert.equal(windowOpen({ ...rule, auto_stop: false }, new Date('2026-03-07T10:00:00Z')), true, 'without auto_stop the schedule stops nothing');
  assert.equal(windowOpen(null, new Date()), true);
});

test('ls-remote output: the branch\'s commit, or null', () => {
  const out = 'a'.repeat(40) + '\trefs/heads/main\n' + 'b'.repeat(40) + '\trefs/heads/main-old\n';
  assert.equal(parseLsRemote(out, 'main'), 'a'.repeat(40));
  assert.equal(parseLsRemote(out, 'dev'), null);
  assert.equal(parseLsRemote('', 'main'), null);
});

test('back-off doubles per failure from the interval, at most an hour', () => {
  assert.deepEqual([1, 2, 3].map((n) => backoffSeconds(60, n)), [120, 240, 480]);
  assert.equal(backoffSeconds(60, 40), 3600);
});

test('the log of a pushed commit starts with its id, who pushed it, its author and message', () => {
  const lines = commitLogLines({
    provider: 'GitHub', via: 'webhook', branch: 'main', commit: 'c'.repeat(40), pusher: 'octocat', author: 'Jane Doe <jane@example.com>',
    message: 'Fix the checkout\n\nBecause it broke.', repositoryUrl: 'https://github.com/acme/shop.git',
  });
  assert.deepEqual(lines, [`Commit ${'c'.repeat(40)} pushed to main by octocat (GitHub webhook)`, 'Author: Jane Doe <jane@example.com>', '    Fix the checkout', '    Because it broke.']);
  const polled = commitLogLines({ provider: 'git', via: 'poll', branch: 'main', commit: 'd'.repeat(40), pusher: null, author: null, message: null, repositoryUrl: 'git://h/x.git' });
  assert.deepEqual(polled, [`Commit ${'d'.repeat(40)} seen on main by polling git://h/x.git`, 'Author and message follow from the clone']);
});

test('the poller\'s first look: the baseline is what the service runs, not the head it first sees', () => {
  const [a, b] = ['a'.repeat(40), 'b'.repeat(40)];
  assert.deepEqual(firstSight({ deployed: true, commit: a, finished: true }, b), { action: 'deploy' }, 'pushed after the deployment: deployed');
  assert.deepEqual(firstSight({ deployed: true, commit: a, finished: false }, b), { action: 'deploy' }, 'pushed while it deploys a named commit');
  assert.deepEqual(firstSight({ deployed: true, commit: a, finished: true }, a.toUpperCase()), { action: 'record' }, 'the head it runs');
  assert.equal(firstSight({ deployed: false, commit: null, finished: null }, b).action, 'wait', 'never deployed: never by the poller');
  const resolving = firstSight({ deployed: true, commit: null, finished: false }, b);
  assert.equal(resolving.action, 'wait', 'a deployment that has not cloned yet may build this head');
  assert.match((resolving as { reason: string }).reason, /not resolved the commit/);
  assert.deepEqual(firstSight({ deployed: true, commit: null, finished: null }, b), { action: 'record' }, 'deployments that never learnt a commit: the head is the baseline');
});
