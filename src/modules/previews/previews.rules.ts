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
}

export type PreviewState = 'OPEN' | 'REFUSED' | 'FAILED' | 'CLOSED';

const TITLE_MAX = 255;
const NAME_MAX = 255;

/** git's rules for a branch name, loosely: what can be put in a spec and shown without harm */
function badBranch(b: unknown): boolean {
  // eslint-disable-next-line no-control-regex
  return typeof b !== 'string' || b.trim() === '' || b.length > 255 || /[\u0000-\u001f\u007f ~^:?*[\\]|\.\.|^-|@\{/.test(b);
}

/**
 * The event checked and tidied (title cut to 255 characters, commit in lower case or '' for a
 * close without one, repository keys computed), or a 400 naming what is wrong: a provider delivery berth cannot act on is the
 * sender's problem, never a 5xx.
 */
export function checkPullRequestEvent(e: PullRequestEvent): { event: PullRequestEvent; repositoryKeys: Set<string> } {
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
  const title = (typeof e.title === 'string' ? e.title : '').replace(/\s+/g, ' ').trim().slice(0, TITLE_MAX);
  const author = typeof e.author === 'string' && e.author.trim() ? e.author.trim().slice(0, 255) : null;
  return { event: { ...e, title, author, headCommit: commit }, repositoryKeys };
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
export function previewLogLines(e: PullRequestEvent, previewed: boolean): string[] {
  const lines = [`Preview of ${pullRequestLabel(e)} (${e.headBranch} into ${e.baseBranch})`];
  if (previewed) lines.push(`Commit ${e.headCommit} of ${e.headBranch}${e.author ? ` by ${e.author}` : ''}`);
  else lines.push('This service is not built from the pull request: deployed as its environment has it');
  return lines;
}

/** why the next pull request gets no preview */
export function capMessage(e: Pick<PullRequestEvent, 'provider' | 'number' | 'title'>, environmentName: string, max: number): string {
  if (max === 0) return `${pullRequestLabel(e)} gets no preview: previews are turned off on this berth (PREVIEW_MAX_PER_ENVIRONMENT=0)`;
  return `${pullRequestLabel(e)} gets no preview: environment "${environmentName}" already has ${max} open preview${max === 1 ? '' : 's'}, `
    + `the most allowed (PREVIEW_MAX_PER_ENVIRONMENT=${max}); close a pull request or raise the limit, and the next event of this one makes its preview`;
}

/** when a preview no event touches any more is deleted */
export function previewExpiry(now: Date, ttlHours: number): string {
  return new Date(now.getTime() + ttlHours * 3_600_000).toISOString();
}
