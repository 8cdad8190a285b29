// A git server for engine tests: bare repositories under a temp dir, served over git's dumb HTTP
// protocol (static files after `git update-server-info`) by busybox httpd on 127.0.0.1 — a
// separate process, so a clone never waits on the test process's event loop.
import { execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './processes.ts';

const run = promisify(execFile);

export interface GitServer {
  baseUrl: string;
  /** a new repository whose branch `main` holds `files`; its clone URL and first commit */
  createRepo(name: string, files: Record<string, string>): Promise<{ url: string; commit: string }>;
  /** commits `files` (added or replaced) on `branch` (default main, created from main if new); the new SHA */
  commit(name: string, files: Record<string, string>, branch?: string): Promise<string>;
  close(): Promise<void>;
}

const gitEnv = {
  ...process.env,
  GIT_AUTHOR_NAME: 'berth test', GIT_AUTHOR_EMAIL: 'test@berth.invalid',
  GIT_COMMITTER_NAME: 'berth test', GIT_COMMITTER_EMAIL: 'test@berth.invalid',
  GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null',
};

async function git(cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await run('git', args, { cwd, env: gitEnv });
  return stdout.trim();
}

async function writeFiles(dir: string, files: Record<string, string>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
}

/** a static server on 127.0.0.1 for `dir` (busybox httpd, in the foreground of its own process) */
export async function serveDirectory(dir: string, extraArgs: string[] = []): Promise<{ port: number; close(): Promise<void> }> {
  const port = await freePort();
  const child = spawn('busybox', ['httpd', '-f', '-p', `127.0.0.1:${port}`, '-h', dir, ...extraArgs], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d) => { stderr += d; });
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`busybox httpd exited: ${stderr}`);
    const up = await fetch(`http://127.0.0.1:${port}/`).then(() => true, () => false);
    if (up) break;
    if (Date.now() > deadline) throw new Error(`busybox httpd did not answer on ${port}: ${stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    port,
    async close() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

export async function startGitServer(): Promise<GitServer> {
  const root = await mkdtemp(join(tmpdir(), 'berth-test-git-'));
  const served = join(root, 'srv');
  await mkdir(served);
  const server = await serveDirectory(served);
  const baseUrl = `http://127.0.0.1:${server.port}`;
  const bare = (name: string) => join(served, `${name}.git`);

  async function commit(name: string, files: Record<string, string>, branch = 'main'): Promise<string> {
    const work = await mkdtemp(join(root, 'work-'));
    try {
      await git(root, 'clone', '-q', bare(name), work);
      const exists = await git(work, 'ls-remote', '--heads', 'origin', branch);
      await git(work, 'checkout', '-q', ...(exists ? [branch] : ['-b', branch, 'origin/main']));
      await writeFiles(work, files);
      await git(work, 'add', '-A');
      await git(work, 'commit', '-q', '--allow-empty', '-m', `update ${Object.keys(files).join(', ')}`);
      await git(work, 'push', '-q', 'origin', branch);
      await git(bare(name), 'update-server-info');
      return await git(work, 'rev-parse', 'HEAD');
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }

  return {
    baseUrl,
    async createRepo(name, files) {
      const work = await mkdtemp(join(root, 'init-'));
      try {
        await git(work, 'init', '-q', '-b', 'main');
        await writeFiles(work, files);
        await git(work, 'add', '-A');
        await git(work, 'commit', '-q', '-m', 'first commit');
        await git(root, 'clone', '-q', '--bare', work, bare(name));
        await git(bare(name), 'update-server-info');
        return { url: `${baseUrl}/${name}.git`, commit: await git(work, 'rev-parse', 'HEAD') };
      } finally {
        await rm(work, { recursive: true, force: true });
      }
    },
    commit,
    async close() {
      await server.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}
