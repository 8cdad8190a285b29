// A git server that accepts pushes, for deploy-on-push tests: bare repositories under a temp dir
// served by `git daemon --enable=receive-pack` on 127.0.0.1 (git's own protocol, git://), a
// separate process. The test pushes commits over the network as a developer would.
import { execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { freeLoopbackPort } from '../../src/lib/processes.ts';

const run = promisify(execFile);

export interface GitDaemon {
  /** git://127.0.0.1:<port> */
  baseUrl: string;
  /** a new repository whose branch main holds `files`; its URL and first commit */
  createRepo(name: string, files: Record<string, string>): Promise<{ url: string; commit: string }>;
  /** clones over git://, commits `files` on `branch` (created from main when new) and pushes it over git://; the new commit */
  push(name: string, files: Record<string, string>, options?: { branch?: string; message?: string }): Promise<string>;
  close(): Promise<void>;
}

const gitEnv = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Ada Pusher', GIT_AUTHOR_EMAIL: 'ada@berth.invalid',
  GIT_COMMITTER_NAME: 'Ada Pusher', GIT_COMMITTER_EMAIL: 'ada@berth.invalid',
  GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_TERMINAL_PROMPT: '0',
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

async function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => { socket.end(); resolve(true); });
    socket.on('error', () => resolve(false));
  });
}

export async function startGitDaemon(): Promise<GitDaemon> {
  const root = await mkdtemp(join(tmpdir(), 'berth-test-gitd-'));
  const served = join(root, 'srv');
  await mkdir(served);
  const port = await freeLoopbackPort();
  const child = spawn('git', ['daemon', '--reuseaddr', '--export-all', '--enable=receive-pack', '--informative-errors',
    `--base-path=${served}`, '--listen=127.0.0.1', `--port=${port}`, served], { env: gitEnv, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d) => { stderr += d; });
  const deadline = Date.now() + 10_000;
  while (!(await answers(port))) {
    if (child.exitCode !== null) throw new Error(`git daemon exited: ${stderr}`);
    if (Date.now() > deadline) throw new Error(`git daemon did not listen on ${port}: ${stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const baseUrl = `git://127.0.0.1:${port}`;

  return {
    baseUrl,
    async createRepo(name, files) {
      const work = await mkdtemp(join(root, 'init-'));
      try {
        await git(work, 'init', '-q', '-b', 'main');
        await writeFiles(work, files);
        await git(work, 'add', '-A');
        await git(work, 'commit', '-q', '-m', 'first commit');
        await git(root, 'clone', '-q', '--bare', work, join(served, `${name}.git`));
        return { url: `${baseUrl}/${name}.git`, commit: await git(work, 'rev-parse', 'HEAD') };
      } finally {
        await rm(work, { recursive: true, force: true });
      }
    },
    async push(name, files, options = {}) {
      const branch = options.branch ?? 'main';
      const work = await mkdtemp(join(root, 'work-'));
      try {
        await git(root, 'clone', '-q', `${baseUrl}/${name}.git`, work);
        const exists = await git(work, 'ls-remote', '--heads', 'origin', branch);
        await git(work, 'checkout', '-q', ...(exists ? [branch] : ['-b', branch, 'origin/main']));
        await writeFiles(work, files);
        await git(work, 'add', '-A');
        await git(work, 'commit', '-q', '--allow-empty', '-m', options.message ?? `update ${Object.keys(files).join(', ')}`);
        await git(work, 'push', '-q', 'origin', branch);
        return await git(work, 'rev-parse', 'HEAD');
      } finally {
        await rm(work, { recursive: true, force: true });
      }
    },
    async close() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      await rm(root, { recursive: true, force: true });
    },
  };
}
