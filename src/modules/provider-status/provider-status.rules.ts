// Pure rules of reporting deployments to git providers (issue 40, decision 0740): which
// deployments are reported (a push's or a preview's, of a known commit), the stage a deployment
// is at (queued, in progress, done) and the stages still to post, each provider's words for a
// stage, where a repository's API is (the public one, or the git token's git_api_url), what a
// provider's answer means (posted, may not write, try again later), the back-off of retries, and
// the pull request's comment rendered from data with every user-controlled string escaped.
import type { DeploymentRecord } from '../deployments/deployments.service.ts';

export type ProviderFamily = 'GITHUB' | 'GITLAB' | 'GITEA' | 'BITBUCKET';
export type Stage = 'QUEUED' | 'IN_PROGRESS' | 'DONE';
export type Outcome = 'queued' | 'in_progress' | 'success' | 'failure' | 'canceled';

const STAGES: readonly Stage[] = ['QUEUED', 'IN_PROGRESS', 'DONE'];
const FAILED = new Set(['BUILD_ERROR', 'DEPLOYMENT_ERROR', 'STOP_ERROR', 'RESTART_ERROR', 'DELETE_ERROR']);

const obj = (v: unknown): Record<string, unknown> | null => (v !== null && typeof v === 'object' && !Array.isArray(v) ? v as Record<string, unknown> : null);
const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v : null);

/** what a reported deployment came from: a push of a tracked branch, or a pull request's preview */
export interface ReportOrigin {
  kind: 'push' | 'preview';
  commit: string;
  /** the provider the event came from (null: the poller, which knows none) */
  provider: ProviderFamily | null;
  previewId: string | null;
  pullRequestNumber: number | null;
}

const FAMILIES: Record<string, ProviderFamily> = {
  github: 'GITHUB', gitlab: 'GITLAB', gitea: 'GITEA', forgejo: 'GITEA', bitbucket: 'BITBUCKET',
};

export function familyOf(name: unknown): ProviderFamily | null {
  return typeof name === 'string' ? FAMILIES[name.toLowerCase()] ?? null : null;
}

/**
 * The deployments berth reports: a DEPLOY or REDEPLOY of a known commit that a push (metadata.git)
 * or a pull request's preview (metadata.preview) requested. A deployment started by hand is not,
 * even of the same commit (decision 0740); null when not reported.
 */
export function reportOrigin(d: Pick<DeploymentRecord, 'action' | 'git_commit_id' | 'metadata'>): ReportOrigin | null {
  if ((d.action !== 'DEPLOY' && d.action !== 'REDEPLOY') || !d.git_commit_id) return null;
  const preview = obj(d.metadata?.preview);
  if (preview && str(preview.preview_id)) {
    const n = preview.pull_request_number;
    return { kind: 'preview', commit: d.git_commit_id, provider: familyOf(preview.provider), previewId: preview.preview_id as string, pullRequestNumber: typeof n === 'number' ? n : null };
  }
  const git = obj(d.metadata?.git);
  if (git) return { kind: 'push', commit: d.git_commit_id, provider: familyOf(git.provider), previewId: null, pullRequestNumber: null };
  return null;
}

/** an agent run per pull request's deployment (its verdict is reported as a check, not a deployment), from metadata.agent */
export function agentRunOf(d: Pick<DeploymentRecord, 'metadata'>): { runId: string; workflowName: string } | null {
  const agent = obj(d.metadata?.agent);
  const runId = str(d.metadata?.agentic_workflow_run_id);
  return agent && runId && str(agent.workflow_name) ? { runId, workflowName: agent.workflow_name as string } : null;
}

/** the one line posted with an agent run's status: its verdict (the agent's final answer, its first line) when done */
export function describeVerdict(o: Outcome, run: { result: string | null; message: string | null } | null): string {
  const first = (t: string | null | undefined) => (t ?? '').split('\n').map((l) => l.trim()).find((l) => l !== '') ?? '';
  let text: string;
  if (o === 'queued') text = 'Agent run queued in berth';
  else if (o === 'in_progress') text = 'Agent running against the preview';
  else if (o === 'success') text = first(run?.result) || 'Agent run finished';
  else if (o === 'canceled') text = `Agent run canceled${run?.message ? `: ${first(run.message)}` : ''}`;
  else text = `Agent run failed${run?.message ? `: ${first(run.message)}` : ''}`;
  text = text.replace(/\s+/g, ' ');
  return text.length > 140 ? `${text.slice(0, 139)}…` : text;
}

/** the repository a service builds from and the git token it clones with (applications, jobs built from git) */
export function repositoryOfSpec(type: string, spec: Record<string, unknown>): { repositoryUrl: string | null; gitTokenId: string | null } {
  const git = type === 'APPLICATION' ? obj(spec.git_repository) : type === 'JOB' ? obj(obj(obj(spec.source)?.docker)?.git_repository) : null;
  return { repositoryUrl: str(git?.url), gitTokenId: str(git?.git_token_id) };
}

/** the stage a deployment is at, from its status */
export function stageOf(d: Pick<DeploymentRecord, 'status' | 'finished'>): Stage {
  if (d.finished) return 'DONE';
  return d.status === 'QUEUED' ? 'QUEUED' : 'IN_PROGRESS';
}

/** how a finished deployment ended */
function outcomeOf(status: string): Outcome {
  if (status === 'CANCELED') return 'canceled';
  return FAILED.has(status) ? 'failure' : 'success';
}

/** the stages still to post, in order: each stage once, none skipped, never backwards */
export function stagesToPost(posted: Stage | null, current: Stage): Stage[] {
  const from = posted === null ? 0 : STAGES.indexOf(posted) + 1;
  return STAGES.slice(from, STAGES.indexOf(current) + 1);
}

/** the outcome posted at a stage (DONE: how the deployment ended) */
export function outcomeAt(stage: Stage, status: string): Outcome {
  return stage === 'QUEUED' ? 'queued' : stage === 'IN_PROGRESS' ? 'in_progress' : outcomeOf(status);
}

/** each provider's word for an outcome: GitHub deployment status, GitLab and Gitea commit status, Bitbucket build status */
export const PROVIDER_STATES: Record<ProviderFamily, Record<Outcome, string>> = {
  GITHUB: { queued: 'queued', in_progress: 'in_progress', success: 'success', failure: 'failure', canceled: 'error' },
  GITLAB: { queued: 'pending', in_progress: 'running', success: 'success', failure: 'failed', canceled: 'canceled' },
  GITEA: { queued: 'pending', in_progress: 'pending', success: 'success', failure: 'failure', canceled: 'error' },
  BITBUCKET: { queued: 'INPROGRESS', in_progress: 'INPROGRESS', success: 'SUCCESSFUL', failure: 'FAILED', canceled: 'STOPPED' },
};

/** the one-line description posted with a status (providers cap it: GitHub 140 characters) */
export function describeOutcome(o: Outcome, message: string | null): string {
  const words: Record<Outcome, string> = {
    queued: 'Queued in berth', in_progress: 'Deploying', success: 'Deployed', failure: 'Deployment failed', canceled: 'Deployment canceled',
  };
  const text = o === 'failure' && message ? `${words[o]}: ${message.replace(/\s+/g, ' ')}` : words[o];
  return text.length > 140 ? `${text.slice(0, 139)}…` : text;
}

/** a repository's host and path (owner/name, GitLab groups/…/project) as its URL spells them */
export function repositoryPath(url: string): { scheme: string; host: string; path: string } | null {
  const raw = url.trim();
  let scheme = 'https';
  let host: string;
  let path: string;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) {
    let u: URL;
    try { u = new URL(raw); } catch { return null; }
    scheme = u.protocol === 'http:' ? 'http' : 'https';
    host = u.host;
    path = decodeURIComponent(u.pathname);
    if (u.protocol === 'ssh:' || u.protocol === 'git:') { scheme = 'https'; host = u.hostname; }
  } else {
    const m = /^(?:[^@/]+@)?([^:/]+):(.+)$/.exec(raw);
    if (!m) return null;
    host = m[1]!;
    path = m[2]!;
  }
  path = path.replace(/^\/+|\/+$/g, '').replace(/\.git$/i, '');
  return path.includes('/') && host ? { scheme, host, path } : null;
}

/** the API base for a repository: the git token's git_api_url when set, else the provider's public API (Gitea: the repository's host) */
export function apiBase(family: ProviderFamily, repositoryUrl: string, gitApiUrl: string): string | null {
  if (gitApiUrl.trim()) return gitApiUrl.trim().replace(/\/+$/, '');
  switch (family) {
    case 'GITHUB': return 'https://api.github.com';
    case 'GITLAB': return 'https://gitlab.com/api/v4';
    case 'BITBUCKET': return 'https://api.bitbucket.org/2.0';
    case 'GITEA': {
      const r = repositoryPath(repositoryUrl);
      return r ? `${r.scheme}://${r.host}/api/v1` : null;
    }
  }
}

/** the provider a git token's type names (GENERIC: a Gitea or Forgejo host, the one API berth speaks for them) */
export function familyOfToken(type: string): ProviderFamily {
  return type === 'GITHUB' || type === 'GITLAB' || type === 'BITBUCKET' ? type : 'GITEA';
}

/** what a provider's answer means: posted, the token may not write (nothing more is posted), or try again */
export function classifyAnswer(status: number | null): 'ok' | 'denied' | 'retry' {
  if (status !== null && status >= 200 && status < 300) return 'ok';
  if (status === 401 || status === 403 || status === 404) return 'denied';
  return 'retry';
}

/** why nothing is posted after a 401/403/404 */
export function deniedReason(family: ProviderFamily, status: number, repository: string): string {
  const what = { 401: 'refused the git token (401: expired or revoked?)', 403: 'says the git token may not write here (403)', 404: 'finds no such repository for the git token (404: no access?)' }[status as 401 | 403 | 404]
    ?? `refused the git token (${status})`;
  return `${PROVIDER_WORDS[family]} ${what} for ${repository}: nothing is posted until the token is replaced by one that may write (see README "Pull requests")`;
}

const PROVIDER_WORDS: Record<ProviderFamily, string> = { GITHUB: 'GitHub', GITLAB: 'GitLab', GITEA: 'Gitea', BITBUCKET: 'Bitbucket' };

export interface RetrySchedule { firstDelayMs: number; maxDelayMs: number; maxAttempts: number }
export const DEFAULT_RETRY_SCHEDULE: RetrySchedule = Object.freeze({ firstDelayMs: 5_000, maxDelayMs: 600_000, maxAttempts: 12 });

/** the delay before attempt `attempts + 1` (doubling), or null when no attempt is left */
export function retryDelay(attempts: number, s: RetrySchedule): number | null {
  if (attempts >= s.maxAttempts) return null;
  return Math.min(s.maxDelayMs, s.firstDelayMs * 2 ** Math.max(0, attempts - 1));
}

/** Markdown text with every character Markdown or HTML could read escaped, on one line */
export function escapeMarkdown(text: string): string {
  return text.replace(/\s+/g, ' ').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
    .replace(/[\\`*_{}[\]()#+\-.!|~@:]/g, (c) => `\\${c}`);
}

/** an http(s) URL safe inside a Markdown link, or null */
export function safeUrl(url: string | null): string | null {
  if (!url) return null;
  let u: URL;
  try { u = new URL(url); } catch { return null; }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
  return u.href.replace(/[()|<> \]\[]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

export interface CommentRow { service: string; url: string | null; status: string; commit: string; message: string | null }
/** an agent run per pull request in the comment: the workflow, the run's status and its verdict */
export interface AgentCommentRow { workflow: string; status: string; verdict: string | null; commit: string; url: string | null }
export interface CommentData {
  environmentName: string | null; state: 'OPEN' | 'REFUSED' | 'FAILED' | 'CLOSED' | 'AWAITING_APPROVAL'; message: string | null; headCommit: string; rows: CommentRow[];
  agents?: AgentCommentRow[];
}

const RUN_WORDS: Record<string, string> = { QUEUED: '⏳ Queued', RUNNING: '🔄 Running', SUCCEEDED: '✅ Done', FAILED: '❌ Failed', CANCELED: '⚪ Canceled' };
const VERDICT_MAX = 600;

/** the comment's agent section: one row per run, the verdict escaped and cut */
function agentSection(agents: readonly AgentCommentRow[]): string[] {
  if (agents.length === 0) return [];
  const lines = ['', '#### Agent runs', '', '| Workflow | State | Verdict | Commit |', '|---|---|---|---|'];
  for (const a of agents) {
    const url = safeUrl(a.url);
    const name = url ? `[${escapeMarkdown(a.workflow)}](${url})` : escapeMarkdown(a.workflow);
    const verdict = a.verdict ? escapeMarkdown(a.verdict.length > VERDICT_MAX ? `${a.verdict.slice(0, VERDICT_MAX - 1)}…` : a.verdict) : '—';
    lines.push(`| ${name} | ${RUN_WORDS[a.status] ?? escapeMarkdown(a.status)} | ${verdict} | \`${a.commit.replace(/[^0-9a-f]/gi, '').slice(0, 7)}\` |`);
  }
  return lines;
}

/** the marker berth's comment starts with (a reader can tell berth's comment from others) */
const COMMENT_MARKER = '<!-- berth:preview -->';

function stateWords(status: string): string {
  if (status === 'QUEUED') return '⏳ Queued';
  if (status === 'DEPLOYED') return '✅ Deployed';
  if (status === 'CANCELED') return '⚪ Canceled';
  if (FAILED.has(status)) return '❌ Failed';
  return '🔄 Deploying';
}

/** the pull request's one comment: the preview environment, each previewed service with its URL and state */
export function renderComment(d: CommentData): string {
  const lines = [COMMENT_MARKER, `### berth preview${d.environmentName ? ` · ${escapeMarkdown(d.environmentName)}` : ''}`, ''];
  if (d.state !== 'OPEN') {
    const word = { CLOSED: 'Closed', REFUSED: 'No preview', FAILED: 'Failed', AWAITING_APPROVAL: 'Awaiting approval' }[d.state];
    lines.push(`**${word}**${d.message ? `: ${escapeMarkdown(d.message)}` : ''}`, ...agentSection(d.agents ?? []));
    return lines.join('\n');
  }
  lines.push('| Service | URL | State | Commit |', '|---|---|---|---|');
  for (const r of d.rows) {
    const url = safeUrl(r.url);
    const state = `${stateWords(r.status)}${FAILED.has(r.status) && r.message ? `: ${escapeMarkdown(r.message.slice(0, 200))}` : ''}`;
    lines.push(`| ${escapeMarkdown(r.service)} | ${url ? `[${escapeMarkdown(url)}](${url})` : '—'} | ${state} | \`${r.commit.replace(/[^0-9a-f]/gi, '').slice(0, 7)}\` |`);
  }
  if (d.rows.length === 0) lines.push('| — | — | nothing deployed yet | — |');
  lines.push(...agentSection(d.agents ?? []));
  lines.push('', `Head commit \`${d.headCommit.replace(/[^0-9a-f]/gi, '').slice(0, 12)}\`; this comment is edited as the preview changes.`);
  return lines.join('\n');
}
