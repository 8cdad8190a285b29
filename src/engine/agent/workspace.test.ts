// Unit tests of the folders repositories are cloned into under /workspace: the last path segment
// without .git, made unique with -2, -3…, scp-style remotes understood, odd characters replaced,
// never a hidden or traversing name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { repositoryDirs } from './workspace.ts';

test('the last path segment without .git (and without trailing slashes)', () => {
  assert.deepEqual(repositoryDirs([
    'https://github.com/acme/api.git', 'https://gitlab.example.com/group/sub/web', 'https://git.example.com/ops/notes/', 'http://gitea:3000/team/infra.git/',
  ]), ['api', 'web', 'notes', 'infra']);
  // only a final .git goes
  assert.deepEqual(repositoryDirs(['https://github.com/acme/my.git.tools.git', 'https://github.com/acme/site.github.io']), ['my.git.tools', 'site.github.io']);
});

test('scp-style and ssh remotes', () => {
  assert.deepEqual(repositoryDirs(['git@github.com:acme/web.git', 'deploy@git.internal:notes', 'ssh://git@gitlab.example.com:2222/g/ops.git']),
    ['web', 'notes', 'ops']);
});

test('unique names: -2, -3 in the order given; the order and the count are kept', () => {
  const urls = ['https://github.com/acme/api.git', 'https://gitlab.com/other/api', 'git@github.com:third/api.git', 'https://github.com/acme/web.git'];
  const dirs = repositoryDirs(urls);
  assert.deepEqual(dirs, ['api', 'api-2', 'api-3', 'web']);
  assert.equal(new Set(dirs).size, dirs.length);
  // a repository really named api-2 does not collide with the suffixed one
  const clash = repositoryDirs(['https://h/a/api', 'https://h/b/api', 'https://h/c/api-2']);
  assert.equal(new Set(clash).size, 3, JSON.stringify(clash));
  assert.deepEqual(clash.slice(0, 2), ['api', 'api-2']);
  assert.deepEqual(repositoryDirs([]), []);
});

test('odd characters are replaced; no name is hidden, empty or a path', () => {
  const dirs = repositoryDirs([
    'https://example.com/team/my repo (1)', 'https://example.com/team/ünïcode.git', 'https://example.com/x/.hidden.git',
    'https://example.com/x/..', 'https://example.com/x/$(reboot)', 'https://example.com/x/.git',
  ]);
  assert.equal(dirs[0], 'my-repo--1-');
  assert.equal(dirs[1], '-n-code');
  for (const d of dirs) {
    assert.match(d, /^[A-Za-z0-9._-]+$/, d);
    assert.ok(!d.startsWith('.'), `hidden or traversing: ${d}`);
    assert.ok(!d.includes('/'), d);
    assert.ok(d.length > 0);
  }
  assert.equal(new Set(dirs).size, dirs.length, JSON.stringify(dirs));
});

test('a name made unique stays visible: a second .hidden repository is not a hidden folder either', () => {
  const dirs = repositoryDirs(['https://a.example/x/.dotfiles.git', 'https://b.example/y/.dotfiles.git', 'https://c.example/z/.dotfiles']);
  assert.equal(dirs[0], 'repo.dotfiles');
  assert.equal(new Set(dirs).size, 3, JSON.stringify(dirs));
  for (const d of dirs) assert.ok(!d.startsWith('.'), `hidden folder: ${d} (of ${JSON.stringify(dirs)})`);
});

test('a fragment or query in the URL is not part of the folder name', () => {
  assert.deepEqual(repositoryDirs(['https://git.example/acme/api.git#main', 'https://git.example/acme/web?x=1']), ['api', 'web']);
});
