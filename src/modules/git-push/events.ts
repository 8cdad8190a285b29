// A provider's webhook delivery read into normalized events, pure: the push (repository URLs,
// branch, new head commit, pusher, the head commit's author and message), a pull/merge request
// (for preview environments), a ping, or something else to acknowledge and ignore. Payload
// shapes as the providers document them: GitHub `push`/`pull_request`/`ping`, GitLab `Push Hook`/
// `Tag Push Hook`/`Merge Request Hook`, Bitbucket Cloud `repo:push`/`pullrequest:*` (one delivery
// may carry several branches), Gitea and Forgejo `push`/`pull_request`.
import { badRequest } from '../../lib/errors.ts';
import { branchOfRef, isNullCommit } from './git-push.rules.ts';
import { header, type GitWebhookProvider, type Headers } from './signatures.ts';

type GitEventKind = 'push' | 'tag_push' | 'pull_request' | 'ping' | 'other';
type PullRequestAction = 'opened' | 'updated' | 'closed' | 'merged' | 'reopened' | 'other';

interface PullRequestFacts {
  number: number | null; action: PullRequestAction; targetBranch: string | null; title: string | null;
  /** the head branch is in another repository than the base (a fork), or its repository was deleted */
  fork: boolean;
  /** the pull request's description, as the provider gives it */
  body: string | null;
}

export interface GitEvent {
  kind: GitEventKind;
  /** the provider's own name of the event (X-GitHub-Event, X-Gitlab-Event, X-Event-Key, X-Gitea-Event) */
  name: string;
  /** every URL the payload gives for the repository (clone, ssh, web) */
  repositoryUrls: string[];
  /** the pushed branch; a pull request's source branch */
  branch: string | null;
  /** the branch's new head; a pull request's head commit */
  commit: string | null;
  /** the push deleted the branch */
  deleted: boolean;
  pusher: string | null;
  /** the head commit's author (`Name <email>`) and message, when the payload has them */
  author: string | null;
  message: string | null;
  pullRequest: PullRequestFacts | null;
}

export interface ParsedDelivery { deliveryId: string | null; events: GitEvent[] }

type J = Record<string, any>;
const s = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const urls = (...values: unknown[]): string[] => [...new Set(values.map(s).filter((v): v is string => v !== null))];
const id = (v: unknown): string | null => (typeof v === 'number' && Number.isFinite(v) ? String(v) : typeof v === 'string' && v !== '' ? v : null);
/** two repository ids or names, both known and different (names compared without case) */
const differ = (a: string | null, b: string | null): boolean | null => (a !== null && b !== null ? a.toLowerCase() !== b.toLowerCase() : null);
const person = (name: unknown, email: unknown): string | null => {
  const n = s(name);
  const e = s(email);
  return n && e ? `${n} <${e}>` : n ?? e;
};

function event(name: string, kind: GitEventKind, fields: Partial<GitEvent> = {}): GitEvent {
  return { kind, name, repositoryUrls: [], branch: null, commit: null, deleted: false, pusher: null, author: null, message: null, pullRequest: null, ...fields };
}

function readJson(body: Buffer, contentType: string | null): J {
  let text = body.toString('utf8');
  // GitHub's "application/x-www-form-urlencoded" content type: payload=<the JSON>
  if (contentType?.includes('application/x-www-form-urlencoded') || text.startsWith('payload=')) {
    text = new URLSearchParams(text).get('payload') ?? '';
  }
  let value: unknown;
  try { value = JSON.parse(text); } catch { throw badRequest('The webhook body is not valid JSON'); }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw badRequest('The webhook body must be a JSON object');
  return value as J;
}

/** the commit of `id` among a payload's commits (GitLab and Gitea list them; GitHub also has head_commit) */
function commitOf(p: J, id: string | null): J | null {
  if (p.head_commit && typeof p.head_commit === 'object') return p.head_commit;
  return (Array.isArray(p.commits) ? p.commits : []).find((c: J) => c?.id === id) ?? null;
}

function prAction(action: string | null, merged: boolean): PullRequestAction {
  switch (action) {
    case 'opened': case 'open': case 'created': return 'opened';
    case 'synchronize': case 'synchronized': case 'update': case 'updated': case 'edited': return 'updated';
    case 'reopened': case 'reopen': return 'reopened';
    case 'closed': case 'close': case 'rejected': case 'declined': return merged ? 'merged' : 'closed';
    case 'merge': case 'merged': case 'fulfilled': return 'merged';
    default: return 'other';
  }
}

/**
 * GitHub, Gitea and Forgejo: the head's repository is not the base's (by id: GitHub's `repo.id`,
 * Gitea's `repo_id`; else by full name), or it is null (the fork was deleted). A payload that
 * names neither repository (not one a provider sends) is taken as from the repository itself.
 */
function githubFork(pr: J): boolean {
  const head = pr.head ?? {};
  const base = pr.base ?? {};
  if (head.repo === null) return true;
  return differ(id(head.repo_id) ?? id(head.repo?.id), id(base.repo_id) ?? id(base.repo?.id))
    ?? differ(s(head.repo?.full_name), s(base.repo?.full_name)) ?? false;
}

/** GitHub, Gitea and Forgejo share the push and pull_request shapes */
function githubLike(name: string, p: J, pusher: string | null): GitEvent {
  const repo = p.repository ?? {};
  const repositoryUrls = urls(repo.clone_url, repo.ssh_url, repo.git_url, repo.html_url, repo.url);
  if (name === 'push') {
    const branch = branchOfRef(p.ref);
    if (!branch) return event(name, typeof p.ref === 'string' && p.ref.startsWith('refs/tags/') ? 'tag_push' : 'other', { repositoryUrls });
    const commit = s(p.after);
    const head = commitOf(p, commit);
    return event(name, 'push', {
      repositoryUrls, branch, commit, deleted: p.deleted === true || isNullCommit(commit), pusher,
      author: person(head?.author?.name, head?.author?.email), message: s(head?.message),
    });
  }
  if (name === 'pull_request') {
    const pr = p.pull_request ?? {};
    return event(name, 'pull_request', {
      repositoryUrls, branch: s(pr.head?.ref), commit: s(pr.head?.sha), pusher: s(p.sender?.login),
      pullRequest: {
        number: typeof p.number === 'number' ? p.number : null, action: prAction(s(p.action), pr.merged === true), targetBranch: s(pr.base?.ref), title: s(pr.title),
        fork: githubFork(pr), body: s(pr.body),
      },
    });
  }
  return event(name, name === 'ping' ? 'ping' : 'other', { repositoryUrls });
}

function gitlab(name: string, p: J): GitEvent {
  const project = p.project ?? {};
  const repo = p.repository ?? {};
  const repositoryUrls = urls(project.git_http_url, project.git_ssh_url, project.web_url, project.http_url, project.ssh_url,
    repo.git_http_url, repo.git_ssh_url, repo.homepage, repo.url);
  const kind = s(p.object_kind);
  if (kind === 'push') {
    const commit = s(p.checkout_sha) ?? s(p.after);
    const head = commitOf(p, commit);
    return event(name, branchOfRef(p.ref) ? 'push' : 'other', {
      repositoryUrls, branch: branchOfRef(p.ref), commit, deleted: isNullCommit(s(p.after)),
      pusher: s(p.user_username) ?? s(p.user_name), author: person(head?.author?.name, head?.author?.email), message: s(head?.message),
    });
  }
  if (kind === 'tag_push') return event(name, 'tag_push', { repositoryUrls });
  if (kind === 'merge_request') {
    const mr = p.object_attributes ?? {};
    return event(name, 'pull_request', {
      repositoryUrls, branch: s(mr.source_branch), commit: s(mr.last_commit?.id), pusher: s(p.user?.username),
      pullRequest: {
        number: typeof mr.iid === 'number' ? mr.iid : null, action: prAction(s(mr.action), mr.state === 'merged'), targetBranch: s(mr.target_branch), title: s(mr.title),
        // a merge request from a fork: its source project is not the target project
        fork: differ(id(mr.source_project_id), id(mr.target_project_id)) ?? differ(s(mr.source?.path_with_namespace), s(mr.target?.path_with_namespace)) ?? false,
        body: s(mr.description),
      },
    });
  }
  return event(name, 'other', { repositoryUrls });
}

/** Bitbucket: the source repository is not the destination's (full name, else uuid), or it is gone (a deleted fork) */
function bitbucketFork(pr: J): boolean {
  const source = pr.source ?? {};
  const destination = pr.destination ?? {};
  if (source.repository === null) return true;
  return differ(s(source.repository?.full_name), s(destination.repository?.full_name))
    ?? differ(s(source.repository?.uuid), s(destination.repository?.uuid)) ?? false;
}

function bitbucket(name: string, p: J): GitEvent[] {
  const repo = p.repository ?? {};
  const html = s(repo.links?.html?.href);
  const repositoryUrls = urls(html, html ? `${html}.git` : null, repo.full_name ? `https://bitbucket.org/${repo.full_name}.git` : null);
  const actor = s(p.actor?.nickname) ?? s(p.actor?.display_name);
  if (name === 'repo:push') {
    const changes: J[] = Array.isArray(p.push?.changes) ? p.push.changes : [];
    const events = changes.map((c) => {
      const ref = c?.new ?? c?.old;
      if (ref?.type !== 'branch') return event(name, ref?.type === 'tag' ? 'tag_push' : 'other', { repositoryUrls });
      const target = c.new?.target ?? {};
      const author = target.author ?? {};
      return event(name, 'push', {
        repositoryUrls, branch: s(ref.name), commit: s(target.hash), deleted: c.closed === true || !c.new, pusher: actor,
        author: s(author.raw) ?? s(author.user?.display_name), message: s(target.message),
      });
    });
    return events.length ? events : [event(name, 'other', { repositoryUrls })];
  }
  if (name.startsWith('pullrequest:')) {
    const pr = p.pullrequest ?? {};
    return [event(name, 'pull_request', {
      repositoryUrls, branch: s(pr.source?.branch?.name), commit: s(pr.source?.commit?.hash), pusher: actor,
      pullRequest: {
        number: typeof pr.id === 'number' ? pr.id : null, action: prAction(name.slice('pullrequest:'.length), false), targetBranch: s(pr.destination?.branch?.name),
        title: s(pr.title), fork: bitbucketFork(pr), body: s(pr.description),
      },
    })];
  }
  return [event(name, 'other', { repositoryUrls })];
}

/**
 * The delivery id and the events of one delivery (already verified). Throws 400 when the body is
 * not a JSON object or the provider's event header is missing.
 */
export function parseDelivery(provider: GitWebhookProvider, headers: Headers, body: Buffer): ParsedDelivery {
  const eventHeader = {
    github: 'x-github-event', gitlab: 'x-gitlab-event', bitbucket: 'x-event-key',
    gitea: header(headers, 'x-gitea-event') ? 'x-gitea-event' : 'x-forgejo-event',
    forgejo: header(headers, 'x-forgejo-event') ? 'x-forgejo-event' : 'x-gitea-event',
  }[provider];
  const name = header(headers, eventHeader);
  if (!name) throw badRequest(`The ${eventHeader} header is missing: this is not a ${provider} webhook delivery`);
  const deliveryId = {
    github: header(headers, 'x-github-delivery'),
    gitlab: header(headers, 'x-gitlab-event-uuid'),
    bitbucket: header(headers, 'x-request-uuid'),
    gitea: header(headers, 'x-gitea-delivery') ?? header(headers, 'x-forgejo-delivery'),
    forgejo: header(headers, 'x-forgejo-delivery') ?? header(headers, 'x-gitea-delivery'),
  }[provider];
  const p = readJson(body, header(headers, 'content-type'));
  switch (provider) {
    case 'github': return { deliveryId, events: [githubLike(name, p, s(p.pusher?.name) ?? s(p.sender?.login))] };
    case 'gitea':
    case 'forgejo': return { deliveryId, events: [githubLike(name, p, s(p.pusher?.login) ?? s(p.pusher?.username) ?? s(p.sender?.login))] };
    case 'gitlab': return { deliveryId, events: [gitlab(name, p)] };
    case 'bitbucket': return { deliveryId, events: bitbucket(name, p) };
  }
}
