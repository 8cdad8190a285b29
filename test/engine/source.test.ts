// Git sources of the Docker engine: which URLs are cloned, and real clones over git's dumb HTTP
// protocol from a server on loopback (at the default branch, a branch, a commit, a root path),
// local repositories only when allowed, a token that authenticates without showing, and abort.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { EngineFailure } from '../../src/engine/engine.ts';
import { cloneRepository } from '../../src/engine/docker/source.ts';
import { checkGitUrl, type GitSource } from '../../src/engine/git.ts';
import { serveDirectory, startGitServer, type GitServer } from '../support/git-server.ts';

const run = promisify(execFile);
const never = new AbortController().signal;

function source(url: string, more: Partial<GitSource> = {}): GitSource {
  return { url, branch: null, commit: null, rootPath: null, ...more };
}

async function clone(src: GitSource, allowLocal = false) {
  const lines: string[] = [];
  const workDir = await mkdtemp(join(tmpdir(), 'berth-test-clone-'));
  const result = await cloneRepository(src, { allowLocal, workDir }, async (l) => { lines.push(l); }, never);
  return { ...result, lines, workDir };
}

async function cloneFailure(src: GitSource, allowLocal = false): Promise<EngineFailure> {
  const err = await clone(src, allowLocal).then(() => null, (e: unknown) => e);
  assert.ok(err instanceof EngineFailure, `expected an EngineFailure, got ${String(err)}`);
  assert.equal(err.phase, 'build');
  return err;
}

describe('git URL policy', () => {
  test('network transports git knows are allowed', () => {
    for (const url of ['https://github.com/acme/app.git', 'http://127.0.0.1:8080/app.git', 'ssh://git@example.com:2222/acme/app.git',
      'git://example.com/app.git', 'git@github.com:acme/app.git', 'example.com:app.git', 'git+ssh://git@example.com/app.git']) {
      assert.equal(checkGitUrl(url, false), null, url);
    }
  });

  test('remote helpers, other schemes and option-looking URLs are refused', () => {
    for (const [url, reason] of [
      ['ext::sh -c touch% /tmp/pwned', /transport "ext::" is not allowed/],
      ['fd::3', /transport "fd::" is not allowed/],
      ['ftp://example.com/app.git', /transport "ftp:\/\/" is not allowed/],
      ['-uupload-pack=touch /tmp/x', /must not start with "-"/],
      ['ssh://-oProxyCommand=touch/app.git', /no valid host/],
      ['-oProxyCommand=x:app.git', /must not start with "-"/],
      ['https://example.com/a b.git', /spaces or control characters/],
      ['', /empty/],
    ] as const) {
      assert.match(checkGitUrl(url, true) ?? 'allowed', reason, url);
    }
  });

  test('local paths and file:// only when the operator allows them', () => {
    for (const url of ['/srv/git/app.git', './app', 'app.git', 'file:///srv/git/app.git']) {
      assert.match(checkGitUrl(url, false) ?? 'allowed', /local git repositories .* not allowed/, url);
      assert.equal(checkGitUrl(url, true), null, url);
    }
  });
});

describe('cloning over dumb HTTP', () => {
  let git: GitServer;
  let repo: { url: string; commit: string };
  let featureCommit: string;
  let headCommit: string;

  before(async () => {
    git = await startGitServer();
    repo = await git.createRepo('app', { 'Dockerfile': 'FROM scratch\n', 'web/index.html': 'v1\n' });
    featureCommit = await git.commit('app', { 'web/index.html': 'feature\n' }, 'feature');
    headCommit = await git.commit('app', { 'web/index.html': 'v2\n', 'extra.txt': 'x' });
  });
  after(() => git.close());

  test('the default branch head, with git output streamed to the log', async () => {
    const c = await clone(source(repo.url));
    assert.equal(c.commit, headCommit);
    assert.equal(await readFile(join(c.dir, 'web/index.html'), 'utf8'), 'v2\n');
    assert.equal(c.contextDir, c.dir, 'without a root path the context is the repository root');
    assert.ok(c.lines.some((l) => l.includes('FETCH_HEAD')), `git's own lines are in the log: ${c.lines.join('\n')}`);
    assert.equal(c.lines.at(-1), `Checked out ${headCommit}`);
  });

  test('a branch, with the build context at its root path', async () => {
    const c = await clone(source(repo.url, { branch: 'feature', rootPath: '/web' }));
    assert.equal(c.commit, featureCommit);
    assert.equal(c.contextDir, join(c.dir, 'web'));
    assert.equal(await readFile(join(c.contextDir, 'index.html'), 'utf8'), 'feature\n');
  });

  test('a commit (full or abbreviated) that is no longer a branch head', async () => {
    for (const commit of [repo.commit, repo.commit.slice(0, 10)]) {
      const c = await clone(source(repo.url, { branch: 'main', commit }));
      assert.equal(c.commit, repo.commit);
      assert.equal(await readFile(join(c.dir, 'web/index.html'), 'utf8'), 'v1\n');
      assert.equal(existsSync(join(c.dir, 'extra.txt')), false);
    }
  });

  test("git's own error for a missing branch, repository or commit", async () => {
    assert.match((await cloneFailure(source(repo.url, { branch: 'nope' }))).message, /^fatal: couldn't find remote ref nope/);
    assert.match((await cloneFailure(source(`${git.baseUrl}/missing.git`))).message, /^fatal: repository '.*missing\.git\/' not found/);
    assert.match((await cloneFailure(source(repo.url, { commit: 'deadbeef'.repeat(5) }))).message, /commit deadbeef.* not found/);
    assert.match((await cloneFailure(source(repo.url, { commit: 'main' }))).message, /not a hexadecimal commit id/);
  });

  test('a root path that is missing or leaves the repository', async () => {
    assert.match((await cloneFailure(source(repo.url, { rootPath: 'nowhere' }))).message, /does not exist/);
    assert.match((await cloneFailure(source(repo.url, { rootPath: '../..' }))).message, /leaves the repository/);
    assert.match((await cloneFailure(source(repo.url, { rootPath: '/../..' }))).message, /leaves the repository/);
  });

  test('refused transports never reach git', async () => {
    const err = await cloneFailure(source('ext::sh -c touch% /tmp/berth-test-pwned'));
    assert.match(err.message, /"ext::" is not allowed/);
    assert.equal(existsSync('/tmp/berth-test-pwned'), false);
  });
});

describe('local repositories', () => {
  let dir: string;
  let commit: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'berth-test-localgit-'));
    const env = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
    await run('git', ['init', '-q', '-b', 'main', join(dir, 'app')], { env });
    await writeFile(join(dir, 'app', 'f.txt'), 'local\n');
    await symlink('/etc', join(dir, 'app', 'escape'));
    await run('git', ['-C', join(dir, 'app'), 'add', '.'], { env });
    await run('git', ['-C', join(dir, 'app'), 'commit', '-q', '-m', 'c'], { env });
    commit = (await run('git', ['-C', join(dir, 'app'), 'rev-parse', 'HEAD'])).stdout.trim();
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test('refused without the operator flag, cloned with it (path and file://)', async () => {
    assert.match((await cloneFailure(source(join(dir, 'app')))).message, /ENGINE_ALLOW_LOCAL_GIT/);
    assert.match((await cloneFailure(source(`file://${join(dir, 'app')}`))).message, /ENGINE_ALLOW_LOCAL_GIT/);
    for (const url of [join(dir, 'app'), `file://${join(dir, 'app')}`]) {
      const c = await clone(source(url), true);
      assert.equal(c.commit, commit);
      assert.equal(await readFile(join(c.dir, 'f.txt'), 'utf8'), 'local\n');
    }
  });

  test('a root path through a committed symlink that leaves the checkout is refused', async () => {
    assert.match((await cloneFailure(source(join(dir, 'app'), { rootPath: '/escape' }), true)).message, /leaves the repository/);
  });
});

describe('tokens and abort', () => {
  test('a token authenticates over HTTP and appears in no log line', async () => {
    const root = await mkdtemp(join(tmpdir(), 'berth-test-private-'));
    const token = 'tok-' + Math.random().toString(36).slice(2);
    const git = await startGitServer();
    const { url, commit } = await git.createRepo('secret', { 'a.txt': 'a' });
    // serve a copy of the bare repo behind basic auth (busybox httpd: /private needs berth:<token>)
    await mkdir(join(root, 'private'));
    await run('git', ['clone', '-q', '--bare', url, join(root, 'private', 'secret.git')]);
    await run('git', ['-C', join(root, 'private', 'secret.git'), 'update-server-info']);
    await writeFile(join(root, 'httpd.conf'), `/private:berth:${token}\n`);
    const server = await serveDirectory(root, ['-c', join(root, 'httpd.conf')]);
    try {
      const privateUrl = `http://berth@127.0.0.1:${server.port}/private/secret.git`;
      const denied = await cloneFailure(source(privateUrl));
      assert.match(denied.message, /Authentication failed|could not read|401/i);
      const c = await clone(source(privateUrl, { token }));
      assert.equal(c.commit, commit);
      assert.ok(!c.lines.some((l) => l.includes(token)), 'the token is never logged');
    } finally {
      await server.close();
      await git.close();
      await rm(root, { recursive: true, force: true });
    }
  });

  test('an abort kills git and rejects at once', async () => {
    // a server that accepts connections and never answers: git would wait forever
    const sockets = new Set<net.Socket>();
    const hang = net.createServer((s) => { sockets.add(s); }).listen(0, '127.0.0.1');
    await new Promise((r) => hang.once('listening', r));
    const port = (hang.address() as net.AddressInfo).port;
    const controller = new AbortController();
    const workDir = await mkdtemp(join(tmpdir(), 'berth-test-clone-'));
    const started = Date.now();
    setTimeout(() => controller.abort(new Error('deployment cancelled')), 500);
    await assert.rejects(cloneRepository(source(`http://127.0.0.1:${port}/app.git`), { allowLocal: false, workDir }, async () => {}, controller.signal),
      /deployment cancelled/);
    assert.ok(Date.now() - started < 5000, 'abort is prompt');
    for (const s of sockets) s.destroy();
    hang.close();
    await rm(workDir, { recursive: true, force: true });
  });
});

describe('submodules', () => {
  test('checked out (recursively, over dumb HTTP too) unless build.skip_git_submodules says not to', async () => {
    const root = await mkdtemp(join(tmpdir(), 'berth-test-submodules-'));
    const env = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t', GIT_CONFIG_GLOBAL: '/dev/null' };
    const git = (...args: string[]) => run('git', args, { env });
    await mkdir(join(root, 'srv'));
    const server = await serveDirectory(join(root, 'srv'));
    const publish = async (work: string, name: string) => {
      await git('clone', '-q', '--bare', work, join(root, 'srv', `${name}.git`));
      await git('-C', join(root, 'srv', `${name}.git`), 'update-server-info');
      return `http://127.0.0.1:${server.port}/${name}.git`;
    };
    try {
      await git('init', '-q', '-b', 'main', join(root, 'lib'));
      await writeFile(join(root, 'lib', 'lib.txt'), 'from the submodule\n');
      await git('-C', join(root, 'lib'), 'add', '.');
      await git('-C', join(root, 'lib'), 'commit', '-q', '-m', 'lib');
      const libUrl = await publish(join(root, 'lib'), 'lib');
      await git('init', '-q', '-b', 'main', join(root, 'app'));
      await writeFile(join(root, 'app', 'Dockerfile'), 'FROM scratch\n');
      await git('-C', join(root, 'app'), 'submodule', 'add', '-q', libUrl, 'vendor/lib');
      await git('-C', join(root, 'app'), 'add', '.');
      await git('-C', join(root, 'app'), 'commit', '-q', '-m', 'app with a submodule');
      const appUrl = await publish(join(root, 'app'), 'app');

      const withSubmodules = await mkdtemp(join(root, 'clone-'));
      const lines: string[] = [];
      const c = await cloneRepository(source(appUrl), { allowLocal: false, workDir: withSubmodules, submodules: true }, async (l) => { lines.push(l); }, never);
      assert.equal(await readFile(join(c.dir, 'vendor/lib/lib.txt'), 'utf8'), 'from the submodule\n');
      assert.ok(lines.includes('Checking out the submodules (build.skip_git_submodules skips them)'), lines.join('\n'));

      const without = await mkdtemp(join(root, 'clone-'));
      const skipped = await cloneRepository(source(appUrl), { allowLocal: false, workDir: without, submodules: false }, async () => {}, never);
      assert.equal(existsSync(join(skipped.dir, 'vendor/lib/lib.txt')), false);
    } finally {
      await server.close();
      await rm(root, { recursive: true, force: true });
    }
  });
});
