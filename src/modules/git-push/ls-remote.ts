// The head of one branch of a remote repository, by `git ls-remote` with the engine's safe git
// environment (src/engine/docker/source.ts: allowed transports only, no prompts, hooks or
// credential helpers, a token only as an Authorization header scoped to the repository's origin,
// never in argv or a message). Run outside any repository, bounded in time.
import { tmpdir } from 'node:os';
import { checkGitUrl, gitEnv, lastErrorLine, runTool } from '../../engine/index.ts';
import { redactUrls } from '../../lib/net.ts';
import { parseLsRemote } from './git-push.rules.ts';

const LS_REMOTE_TIMEOUT_MS = 30_000;

class LsRemoteFailure extends Error {}

/** the commit at refs/heads/<branch>; throws LsRemoteFailure with git's (redacted) words */
export async function lsRemoteHead(source: { url: string; branch: string; token: string | null; username?: string | null },
  opts: { allowLocal: boolean; signal: AbortSignal; timeoutMs?: number }): Promise<string> {
  const refused = checkGitUrl(source.url, opts.allowLocal);
  if (refused) throw new LsRemoteFailure(refused);
  if (!source.branch.trim() || source.branch.startsWith('-') || /[\s\x00-\x1f\x7f]/.test(source.branch)) {
    throw new LsRemoteFailure(`branch "${source.branch}" is not a valid branch name`);
  }
  const env = gitEnv({ url: source.url, branch: source.branch, commit: null, rootPath: null, token: source.token, username: source.username ?? null }, opts.allowLocal);
  const signal = AbortSignal.any([opts.signal, AbortSignal.timeout(opts.timeoutMs ?? LS_REMOTE_TIMEOUT_MS)]);
  let run;
  try {
    run = await runTool('git', ['ls-remote', '--end-of-options', source.url, `refs/heads/${source.branch}`],
      { cwd: tmpdir(), env, signal, onLine: () => {}, captureStdout: true });
  } catch (err) {
    if (opts.signal.aborted) throw err;
    throw new LsRemoteFailure(signal.aborted ? `git ls-remote did not answer within ${Math.round((opts.timeoutMs ?? LS_REMOTE_TIMEOUT_MS) / 1000)} s` : `could not run git: ${(err as Error).message}`);
  }
  if (run.code !== 0) throw new LsRemoteFailure(lastErrorLine(run.tail, `git ls-remote failed (exit ${run.code})`));
  const commit = parseLsRemote(run.stdout, source.branch);
  if (!commit) throw new LsRemoteFailure(`branch ${source.branch} not found in ${redactUrls(source.url)}`);
  return commit;
}
