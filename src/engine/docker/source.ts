// Application sources: the clone itself through the `git` CLI (spawned without a shell), under
// the engine's git policy (../git.ts: allowed transports only, no prompts, credential helpers or
// hooks, a token only as an Authorization header scoped to the repository's origin, never in argv
// or the logs). Submodules are checked out (shallow, recursively) unless the service's
// build.skip_git_submodules says not to; they go through the same transport policy and
// environment (decision 0336).
import { access, mkdir, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, normalize, sep } from 'node:path';
import { EngineFailure } from '../engine.ts';
import { checkGitUrl, gitEnv, lastErrorLine, type GitSource } from '../git.ts';
import { runTool } from '../process.ts';
import { redactUrls } from '../../lib/net.ts';

function checkRefs(source: GitSource): void {
  if (source.commit !== null && !/^[0-9a-f]{4,64}$/i.test(source.commit)) throw new EngineFailure('build', `git commit "${source.commit}" is not a hexadecimal commit id`);
  if (source.branch !== null && (!source.branch.trim() || source.branch.startsWith('-') || /[\s\x00-\x1f\x7f]/.test(source.branch))) {
    throw new EngineFailure('build', `git branch "${source.branch}" is not a valid branch name`);
  }
}

/** the build context inside the checkout: the repository root or its root path, never outside it */
async function resolveContextDir(repoDir: string, rootPath: string | null): Promise<string> {
  const relative = normalize((rootPath ?? '').replace(/^\/+/, '') || '.');
  if (isAbsolute(relative) || relative === '..' || relative.startsWith(`..${sep}`)) throw new EngineFailure('build', `root path "${rootPath}" leaves the repository`);
  const root = await realpath(repoDir);
  let dir: string;
  try { dir = await realpath(join(root, relative)); } catch { throw new EngineFailure('build', `root path "${rootPath}" does not exist in the repository`); }
  if (dir !== root && !dir.startsWith(root + sep)) throw new EngineFailure('build', `root path "${rootPath}" leaves the repository`);
  if (!(await stat(dir)).isDirectory()) throw new EngineFailure('build', `root path "${rootPath}" is not a directory`);
  return dir;
}

/**
 * Clones `source` into `opts.workDir/repo` and checks out its commit (or its branch's head, or
 * the remote's default branch). Returns the checkout (`dir`, the repository root), the build
 * context inside it (`contextDir`: `rootPath` resolved and checked to stay inside the checkout,
 * symlinks included) and the full SHA checked out. Git's own lines go to `log` (the caller logs
 * what it clones). Failures throw EngineFailure('build', <git's words>).
 */
export async function cloneRepository(source: GitSource, opts: { allowLocal: boolean; workDir: string; submodules?: boolean },
  log: (line: string) => Promise<void>, signal: AbortSignal): Promise<{ dir: string; commit: string; contextDir: string }> {
  const refused = checkGitUrl(source.url, opts.allowLocal);
  if (refused) throw new EngineFailure('build', refused);
  checkRefs(source);
  const env = gitEnv(source, opts.allowLocal);
  const repoDir = join(opts.workDir, 'repo');
  await mkdir(repoDir, { recursive: true });

  // log lines are written in order without holding git back
  let logged: Promise<void> = Promise.resolve();
  const onLine = (line: string) => { logged = logged.then(() => log(redactUrls(line))).catch(() => {}); };
  const git = async (args: string[], quiet = false) => {
    const run = await runTool('git', args, { cwd: repoDir, env, signal, onLine: quiet ? () => {} : onLine, captureStdout: quiet }).catch((err: Error) => {
      if (signal.aborted) throw err;
      throw new EngineFailure('build', `could not run git on this host: ${err.message}`);
    });
    await logged;
    return run;
  };
  const must = async (args: string[], what: string) => {
    const run = await git(args);
    if (run.code !== 0) throw new EngineFailure('build', lastErrorLine(run.tail, `git ${what} failed (exit ${run.code})`));
    return run;
  };

  await must(['init', '-q', '.'], 'init');
  await must(['remote', 'add', 'origin', '--', source.url], 'remote add');
  const fetch = (depth: boolean, refspecs: string[]) => git(['fetch', '--progress', '--no-tags', ...(depth ? ['--depth', '1'] : []), '--end-of-options', 'origin', ...refspecs]);

  let target: string;
  if (source.commit) {
    // a full SHA is fetched shallowly where the server allows it; otherwise every branch
    const shallow = source.commit.length === 40 ? await fetch(true, [source.commit]) : null;
    if (!shallow || shallow.code !== 0) {
      if (shallow) await log('The server cannot fetch this commit alone; fetching every branch');
      const full = await fetch(false, ['+refs/heads/*:refs/remotes/origin/*']);
      if (full.code !== 0) throw new EngineFailure('build', lastErrorLine(full.tail, 'git fetch failed'));
    }
    target = source.commit;
  } else {
    const ref = source.branch ?? 'HEAD';
    let run = await fetch(true, [ref]);
    if (run.code !== 0 && run.tail.some((l) => /shallow|depth/i.test(l))) {
      await log('The server cannot do a shallow fetch; fetching the full history');
      run = await fetch(false, [ref]);
    }
    if (run.code !== 0) throw new EngineFailure('build', lastErrorLine(run.tail, 'git fetch failed'));
    target = 'FETCH_HEAD';
  }
  const resolved = await git(['rev-parse', '--verify', '--quiet', '--end-of-options', `${target}^{commit}`], true);
  const commit = resolved.stdout.trim();
  if (resolved.code !== 0 || !/^[0-9a-f]{40,64}$/.test(commit)) {
    throw new EngineFailure('build', `commit ${source.commit ?? target} not found in ${redactUrls(source.url)}`);
  }
  // who made the commit and why, from the clone (a polled commit's deployment learns it here)
  const about = await git(['log', '-1', '--format=%an <%ae>%x00%s', '--end-of-options', commit], true);
  const [author, subject] = about.stdout.trim().split('\0');
  if (about.code === 0 && author) await log(`Commit ${commit} by ${author}${subject ? `: ${subject}` : ''}`);
  await must(['checkout', '-q', '--detach', commit], 'checkout');
  await log(`Checked out ${commit}`);
  if (opts.submodules && await access(join(repoDir, '.gitmodules')).then(() => true, () => false)) {
    await log('Checking out the submodules (build.skip_git_submodules skips them)');
    // shallow first; a server that cannot send a submodule's commit alone gets a full fetch
    let run = await git(['submodule', 'update', '--init', '--recursive', '--depth', '1']);
    if (run.code !== 0) run = await git(['submodule', 'update', '--init', '--recursive']);
    if (run.code !== 0) {
      throw new EngineFailure('build', `${lastErrorLine(run.tail, `git submodule update failed (exit ${run.code})`)} (set build.skip_git_submodules to build without the submodules)`);
    }
  }
  return { dir: repoDir, commit, contextDir: await resolveContextDir(repoDir, source.rootPath) };
}
