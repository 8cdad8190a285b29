// Pure rules of preview environments: the pull-request event a provider webhook is read into (and
// its checks), which services a pull request previews (git source, repository, tracked branch,
// auto_preview: the service's own, else its environment's), the copy's name, the order its
// services deploy in, the lines a preview deployment's log starts with and the words of a refusal.
// Repository URLs are compared with the deploy-on-push module's one normalizer (repositoryKey).
import { badRequest } from '../../lib/errors.ts';
import { repositoryKey } from '../git-push/git-push.rules.ts';

export { repositoryKey };

const PULL_REQUEST_PROVIDERS = ['GITHUB', 'GITLAB', 'BITBUCKET', 'GITEA'] as const;
const PULL_REQUEST_ACTIONS = ['opened', 'reopened', 'synchronize', 'closed'] as const;
export type PullRequestProvider = (typeof PULL_REQUEST_PROVIDERS)[number];
export type PullRequestEventAction = (typeof PULL_REQUEST_ACTIONS)[number];

/** a pull (merge) request event, as the git webhook route reads it from a provider's delivery */
export interface PullRequestEvent {
  provider: PullRequestProvider;
  action: PullRequestEventAction;
  number: number;
  title: string;
  /** the clone URLs the provider gives (https, ssh, html) */
  repositoryUrls: string[];
  /** the branch the pull request goes into (the one services track) */
  baseBranch: string;
  /** the pull request's branch, and its newest commit */
  headBranch: string;
  headCommit: string;
  author: string | null;
  /** only this organization's environments (the webhook's URL names it) */
  organizationId?: string;
  /**
   * the head branch is in another repository (a fork, or a deleted one): no preview until someone
   * who may deploy the environment approves its head commit (decision 0748)
   */
  fork: boolean;
  /** the pull request's description (at most BODY_MAX_BYTES once checked) */
  body: string | null;
}

/** an event as callers may hand it in: without `fork` it is not from a fork; without `body` it has no description */
export type PullRequestEventInput = Omit<PullRequestEvent, 'fork' | 'body'> & { fork?: boolean; body?: string | null };

export type PreviewState = 'OPEN' | 'REFUSED' | 'FAILED' | 'CLOSED' | 'AWAITING_APPROVAL';

const TITLE_MAX = 255;
const NAME_MAX = 255;
/** a description is kept up to 64 KiB of UTF-8 */
export const BODY_MAX_BYTES = 64 * 1024;

// eslint-disable-next-line no-control-regex
const NUL = /\u0000/g;

/** the text without NUL characters (PostgreSQL's text refuses them), cut to `maxBytes` of UTF-8 on a character boundary */
export function cutText(text: string, maxBytes: number): string {
  const clean = text.replace(NUL, '');
  if (Buffer.byteLength(clean, 'utf8') <= maxBytes) return clean;
  // a character cut in half decodes as U+FFFD at the end: dropped
  return Buffer.from(clean, 'utf8').subarray(0, maxBytes).toString('utf8').replace(/\uFFFD+$/, '');
}

/** git's rules for a branch name, loosely: what can be put in a spec and shown without harm */
function badBranch(b: unknown): boolean {
  // eslint-disable-next-line no-control-regex
  return typeof b !== 'string' || b.trim() === '' || b.length > 255 || /[\u0000-\u001f\u007f ~^:?*[\\]|\.\.|^-|@\{/.test(b);
}

/**
 * The event checked and tidied (title cut to 255 characters, description to 64 KiB, commit in
 * lower case or '' for a close without one, not a fork unless it says so, repository keys
 * computed), or a 400 naming what is wrong: a provider delivery berth cannot act on is the
 * sender's problem, never a 5xx.
 */
export function checkPullRequestEvent(e: PullRequestEventInput): { event: PullRequestEvent; repositoryKeys: Set<string> } {
  if (!PULL_REQUEST_PROVIDERS.includes(e.provider)) throw badRequest(`provider must be one of ${PULL_REQUEST_PROVIDERS.join(', ')}`);
  if (!PULL_REQUEST_ACTIONS.includes(e.action)) throw badRequest(`action must be one of ${PULL_REQUEST_ACTIONS.join(', ')}`);
  if (e.organizationId !== undefined && !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(e.organizationId)) {
    throw badRequest('organizationId must be a UUID');
  }
  if (!Number.isSafeInteger(e.number) || e.number < 1 || e.number > 2_147_483_647) throw badRequest('number must be the pull request\'s number (a positive integer)');
  if (badBranch(e.baseBranch)) throw badRequest('baseBranch must be a branch name');
  if (badBranch(e.headBranch)) throw badRequest('headBranch must be a branch name');
  // Bitbucket's pull request payloads carry 12 digits of the commit; a close needs none
  let commit = typeof e.headCommit === 'string' ? e.headCommit.toLowerCase() : '';
  if (!/^[0-9a-f]{7,64}$/.test(commit)) {
    if (e.action !== 'closed') throw badRequest('headCommit must be a commit id (7 to 64 hexadecimal digits)');
    commit = '';
  }
  const repositoryKeys = new Set((Array.isArray(e.repositoryUrls) ? e.repositoryUrls : [])
    .map((u) => (typeof u === 'string' ? repositoryKey(u) : null)).filter((k): k is string => k !== null));
  if (repositoryKeys.size === 0) throw badRequest('repositoryUrls must name the repository (a clone or web URL)');
  if (e.fork !== undefined && typeof e.fork !== 'boolean') throw badRequest('fork must be a boolean');
  if (e.body !== undefined && e.body !== null && typeof e.body !== 'string') throw badRequest('body must be a string or null');
  const title = (typeof e.title === 'string' ? e.title : '').replace(NUL, '').replace(/\s+/g, ' ').trim().slice(0, TITLE_MAX);
  const author = typeof e.author === 'string' && e.author.replace(NUL, '').trim() ? e.author.replace(NUL, '').trim().slice(0, 255) : null;
  const body = typeof e.body === 'string' && e.body.trim() ? cutText(e.body, BODY_MAX_BYTES) : null;
  return { event: { ...e, title, author, headCommit: commit, fork: e.fork === true, body }, repositoryKeys };
}

type Spec = Record<string, unknown>;
const obj = (v: unknown): Spec | null => (v !== null && typeof v === 'object' && !Array.isArray(v) ? v as Spec : null);

/** the repository and branch a service builds from: applications, and jobs built from git; else null */
export function gitSourceOf(type: string, spec: Spec): { url: string; branch: string } | null {
  const repo = type === 'APPLICATION' ? obj(spec.git_repository)
    : type === 'JOB' ? obj(obj(obj(spec.source)?.docker)?.git_repository) : null;
  if (!repo || typeof repo.url !== 'string' || !repo.url.trim()) return null;
  return { url: repo.url, branch: typeof repo.branch === 'string' && repo.branch.trim() ? repo.branch : 'main' };
}

/** auto_preview: the service's own when it has one, else its environment's (the seed's rule) */
export function previewEnabled(spec: Spec, environmentAutoPreview: boolean): boolean {
  return typeof spec.auto_preview === 'boolean' ? spec.auto_preview : environmentAutoPreview;
}

export interface ServiceFacts { id: string; type: string; spec: Spec; environment_auto_preview: boolean }

/** a service a pull request into `baseBranch` of one of `repositoryKeys` previews */
export function previewedBy(s: ServiceFacts, repositoryKeys: ReadonlySet<string>, baseBranch: string): boolean {
  const source = gitSourceOf(s.type, s.spec ?? {});
  if (!source || source.branch !== baseBranch) return false;
  const key = repositoryKey(source.url);
  return key !== null && repositoryKeys.has(key) && previewEnabled(s.spec ?? {}, s.environment_auto_preview);
}

/** `<env>-pr-<number>`, or with `-2`, `-3`… when taken (`taken`: lower-case names of the project) */
export function previewEnvironmentName(environmentName: string, number: number, taken: ReadonlySet<string>): string {
  for (let i = 1; ; i++) {
    const suffix = `-pr-${number}${i === 1 ? '' : `-${i}`}`;
    const name = `${environmentName.slice(0, NAME_MAX - suffix.length)}${suffix}`;
    if (!taken.has(name.toLowerCase())) return name;
  }
}

const TYPE_ORDER: Record<string, number> = { DATABASE: 0, CONTAINER: 1, APPLICATION: 2, JOB: 3 };

/**
 * The services of a new copy to deploy, in order: databases, containers, applications, jobs,
 * then other types; each type in creation order. Agentic workflows are left out: they run on
 * their own triggers (webhook, schedule), not when their environment deploys.
 */
export function deploymentOrder<T extends { id: string; type: string; created_at: Date | string }>(services: readonly T[]): T[] {
  const rank = (t: string) => TYPE_ORDER[t] ?? 4;
  return services.filter((s) => s.type !== 'AGENTIC_WORKFLOW').sort((a, b) =>
    rank(a.type) - rank(b.type) || new Date(a.created_at).getTime() - new Date(b.created_at).getTime() || (a.id < b.id ? -1 : 1));
}

const PROVIDER_WORDS: Record<PullRequestProvider, string> = { GITHUB: 'GitHub', GITLAB: 'GitLab', BITBUCKET: 'Bitbucket', GITEA: 'Gitea' };

/** how the pull request is named in messages: `GitHub pull request #12 "Add login"` */
export function pullRequestLabel(e: Pick<PullRequestEvent, 'provider' | 'number' | 'title'>): string {
  const what = e.provider === 'GITLAB' ? 'merge request' : 'pull request';
  return `${PROVIDER_WORDS[e.provider]} ${what} ${e.provider === 'GITLAB' ? '!' : '#'}${e.number}${e.title ? ` "${e.title}"` : ''}`;
}

/** the lines a preview deployment's log starts with */
export function previewLogLines(e: PullRequestEvent, previewed: boolean, approvedBy: string | null = null): string[] {
  const lines = [`Preview of ${pullRequestLabel(e)} (${e.headBranch} into ${e.baseBranch})`];
  if (previewed) lines.push(`Commit ${e.headCommit} of ${e.headBranch}${e.author ? ` by ${e.author}` : ''}`);
  else lines.push('This service is not built from the pull request: deployed as its environment has it');
  if (approvedBy) lines.push(`The pull request comes from a fork: head commit ${e.headCommit} approved by ${approvedBy}`);
  return lines;
}

/** why the next pull request gets no preview */
export function capMessage(e: Pick<PullRequestEvent, 'provider' | 'number' | 'title'>, environmentName: string, max: number,
  then = 'and the next event of this one makes its preview'): string {
  if (max === 0) return `${pullRequestLabel(e)} gets no preview: previews are turned off on this berth (PREVIEW_MAX_PER_ENVIRONMENT=0)`;
  return `${pullRequestLabel(e)} gets no preview: environment "${environmentName}" already has ${max} open preview${max === 1 ? '' : 's'}, `
    + `the most allowed (PREVIEW_MAX_PER_ENVIRONMENT=${max}); close a pull request or raise the limit, ${then}`;
}

/** when a preview no event touches any more is deleted */
export function previewExpiry(now: Date, ttlHours: number): string {
  return new Date(now.getTime() + ttlHours * 3_600_000).toISOString();
}

/** how a preview of a pull request from a fork is approved: the API path, the CLI command, the console */
function approvalWays(environmentId: string, previewId: string): string {
  return `POST /environment/${environmentId}/preview/${previewId}/approve, \`berth preview approve ${previewId} --environment ${environmentId}\`, `
    + 'or Approve on the environment\'s previews in the console';
}

/**
 * Why a pull request from a fork has no preview (yet) or its copy is not redeployed: who may approve
 * and how; `copy`: the copy made at an earlier approved commit, which stays as it was.
 */
export function approvalMessage(e: Pick<PullRequestEvent, 'provider' | 'number' | 'title' | 'headCommit'>, environment: { id: string; name: string },
  previewId: string, copy: { name: string; approvedCommit: string } | null): string {
  const who = `someone with a role that may deploy environment "${environment.name}" (DevOps and above) approves head commit ${e.headCommit.slice(0, 12)}: ${approvalWays(environment.id, previewId)}`;
  const once = 'An approval is for one head commit: each new commit of the pull request waits for approval again.';
  if (copy) {
    return `${pullRequestLabel(e)} comes from a fork and its new head commit is not approved: its preview environment `
      + `"${copy.name}" stays at the approved commit ${copy.approvedCommit.slice(0, 12)}, not redeployed with unreviewed code, until ${who}. ${once}`;
  }
  return `${pullRequestLabel(e)} comes from a fork: berth makes no preview of it and runs nothing (a copy would carry the environment's secrets) `
    + `until ${who}. ${once}`;
}
