// Pure rules of deploy on push: which repository a URL names (one key for its https, ssh and git
// spellings), what a service tracks (repository, branch, auto_deploy), the deployment window of
// an environment's rule, `git ls-remote` output, the poller's first look and back-off, and the
// lines a pushed commit's deployment log starts with. No I/O.
import { WEEKDAYS, type Weekday } from '../deployment-rules/deployment-rules.rules.ts';
import type { SourceBaseline } from '../deployments/deployments.rules.ts';

/**
 * The repository a git URL names, as `host/path` in lower case without scheme, credentials, port
 * or `.git`: `https://github.com/Acme/Web.git`, `git@github.com:acme/web` and
 * `ssh://git@github.com:22/acme/web.git` are all `github.com/acme/web`. Local paths keep their
 * path (`local:/srv/web`). Null for an empty or unreadable URL.
 */
export function repositoryKey(url: string): string | null {
  const raw = url.trim();
  if (!raw) return null;
  let host = '';
  let path = '';
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(raw);
  if (scheme && scheme[1]!.toLowerCase() !== 'file') {
    try {
      const u = new URL(raw);
      host = u.hostname;
      path = decodeURIComponent(u.pathname);
    } catch { return null; }
  } else if (!scheme && /^[^/]*:/.test(raw) && !/^[a-z]:\\/i.test(raw)) {
    // scp-like [user@]host:path
    const colon = raw.indexOf(':');
    host = raw.slice(0, colon).replace(/^[^@]*@/, '');
    path = raw.slice(colon + 1);
  } else {
    path = scheme ? raw.slice(scheme[0].length) : raw;
  }
  const clean = path.replace(/\/+/g, '/').replace(/\/+$/, '').replace(/\.git$/i, '').replace(/^\/+/, '');
  if (!host) return clean ? `local:/${clean}`.toLowerCase() : null;
  if (!clean) return null;
  return `${host.replace(/^\[|\]$/g, '')}/${clean}`.toLowerCase();
}

/** `refs/heads/<branch>` → the branch; null for tags and other refs */
export function branchOfRef(ref: string | null | undefined): string | null {
  if (typeof ref !== 'string' || !ref.startsWith('refs/heads/')) return null;
  const branch = ref.slice('refs/heads/'.length);
  return branch || null;
}

/** git's all-zero object id: the "after" of a deleted branch */
export function isNullCommit(commit: string | null | undefined): boolean {
  return typeof commit !== 'string' || /^0+$/.test(commit);
}

export interface TrackedSource { url: string; branch: string; gitTokenId: string | null }

type Spec = Record<string, unknown>;
const obj = (v: unknown): Spec | null => (v !== null && typeof v === 'object' && !Array.isArray(v) ? v as Spec : null);

/**
 * The git source a service builds from and whether it deploys on push: applications (auto_deploy
 * true unless set otherwise, as their default) and jobs built from git (their auto_deploy as
 * stored). Null for every other service, a service without a git URL, and auto_deploy false/null.
 */
export function trackedSource(type: string, spec: Spec): TrackedSource | null {
  let repo: Spec | null = null;
  let autoDeploy: unknown = spec.auto_deploy;
  if (type === 'APPLICATION') {
    repo = obj(spec.git_repository);
    if (!('auto_deploy' in spec)) autoDeploy = true;
  } else if (type === 'JOB') {
    repo = obj(obj(obj(spec.source)?.docker)?.git_repository);
  } else return null;
  if (autoDeploy !== true || !repo || typeof repo.url !== 'string' || !repo.url.trim()) return null;
  const branch = typeof repo.branch === 'string' && repo.branch.trim() ? repo.branch : 'main';
  return { url: repo.url, branch, gitTokenId: typeof repo.git_token_id === 'string' ? repo.git_token_id : null };
}

export interface WindowRule { timezone: string; start_time: string; stop_time: string; weekdays: string[]; auto_stop: boolean }

/** the weekday and `HH:MM` of an instant in a time zone */
function wallClock(now: Date, timeZone: string): { weekday: Weekday; time: string } {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone, weekday: 'long', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(now);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return { weekday: part('weekday').toUpperCase() as Weekday, time: `${part('hour')}:${part('minute')}` };
}

/**
 * Whether a deployment may start now under the environment's rule: always, unless the rule stops
 * the environment outside its window (auto_stop); then only on its weekdays, from start_time
 * until stop_time (the stop minute excluded), in its time zone.
 */
export function windowOpen(rule: WindowRule | null, now: Date): boolean {
  if (!rule || !rule.auto_stop) return true;
  const { weekday, time } = wallClock(now, rule.timezone);
  if (!WEEKDAYS.includes(weekday) || !rule.weekdays.includes(weekday)) return false;
  return time >= rule.start_time && time < rule.stop_time;
}

/** the commit `git ls-remote <url> refs/heads/<branch>` printed for the branch, null when absent */
export function parseLsRemote(stdout: string, branch: string): string | null {
  for (const line of stdout.split('\n')) {
    const [sha, ref] = line.trim().split(/\s+/);
    if (ref === `refs/heads/${branch}` && sha && /^[0-9a-f]{40,64}$/.test(sha)) return sha;
  }
  return null;
}

/** seconds before the poller tries a failing repository again: the interval doubled per failure, at most an hour */
export function backoffSeconds(intervalSeconds: number, failures: number): number {
  return Math.min(3600, intervalSeconds * 2 ** Math.min(failures, 16));
}

export type FirstSight =
  | { action: 'deploy' }
  | { action: 'record' }
  | { action: 'wait'; reason: string };

/**
 * The poller's first look at a service (no head recorded for its repository and branch): the
 * baseline is what the service runs, not whatever head the poller happens to see first, so a
 * commit pushed between a deployment and the first poll round is deployed. A service never
 * deployed is not deployed by the poller; one whose deployment has not learnt its commit yet
 * (its build has not cloned) is looked at again next round. A deployment that finished without
 * a commit (it failed before cloning, or an engine that does not resolve commits) leaves the
 * head seen now as the baseline.
 */
export function firstSight(baseline: SourceBaseline, head: string): FirstSight {
  if (!baseline.deployed) return { action: 'wait', reason: 'never deployed: the poller deploys new commits of a service once it has been deployed' };
  if (baseline.commit === null && baseline.finished === false) return { action: 'wait', reason: 'its deployment has not resolved the commit it builds yet' };
  if (baseline.commit === null || baseline.commit.toLowerCase() === head.toLowerCase()) return { action: 'record' };
  return { action: 'deploy' };
}

export interface PushFacts {
  provider: string;
  /** webhook or poll */
  via: 'webhook' | 'poll';
  branch: string;
  commit: string;
  pusher: string | null;
  author: string | null;
  message: string | null;
  repositoryUrl: string;
}

const MESSAGE_LINES = 10;

/** the lines a pushed commit's deployment log starts with: the commit, who pushed it, its author and message */
export function commitLogLines(p: PushFacts): string[] {
  const origin = p.via === 'poll'
    ? `seen on ${p.branch} by polling ${p.repositoryUrl}`
    : `pushed to ${p.branch}${p.pusher ? ` by ${p.pusher}` : ''} (${p.provider} webhook)`;
  const lines = [`Commit ${p.commit} ${origin}`];
  if (p.author) lines.push(`Author: ${p.author}`);
  const message = (p.message ?? '').replace(/\r\n?/g, '\n').split('\n').filter((l) => l.trim());
  if (message.length > 0) {
    lines.push(...message.slice(0, MESSAGE_LINES).map((l) => `    ${l}`.trimEnd()));
    if (message.length > MESSAGE_LINES) lines.push(`    (${message.length - MESSAGE_LINES} more lines)`);
  }
  if (p.via === 'poll') lines.push('Author and message follow from the clone');
  return lines;
}
