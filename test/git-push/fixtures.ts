// Webhook deliveries as the providers send them, written by us after their public documentation
// of the payloads and headers: GitHub "push", "pull_request" and "ping"; GitLab "Push Hook" and
// "Merge Request Hook"; Bitbucket Cloud "repo:push" and "pullrequest:created"; Gitea and Forgejo
// "push" (Gitea also sends its GitHub- and Gogs-compatible headers). Trimmed of members berth
// does not read, never of the ones it does. `signed` adds the provider's signature headers.
import { randomUUID } from 'node:crypto';
import { signatureHeaders, type GitWebhookProvider } from '../../src/modules/git-push/signatures.ts';

export interface PushSpec {
  /** https web URL of the repository, e.g. https://github.com/acme/shop */
  web: string;
  branch?: string;
  commit: string;
  before?: string;
  pusher?: string;
  authorName?: string;
  authorEmail?: string;
  message?: string;
  deliveryId?: string;
  deleted?: boolean;
}

export interface Delivery { headers: Record<string, string>; body: string }

const ZERO = '0'.repeat(40);

function parts(web: string) {
  const u = new URL(web);
  const fullName = u.pathname.replace(/^\/|\.git$/g, '');
  const [owner, name] = [fullName.split('/').slice(0, -1).join('/'), fullName.split('/').at(-1)!];
  return { host: u.host, fullName, owner, name, clone: `${web}.git`, ssh: `git@${u.hostname}:${fullName}.git` };
}

function githubLikePush(s: PushSpec, pusher: Record<string, unknown>) {
  const r = parts(s.web);
  const after = s.deleted ? ZERO : s.commit;
  const commit = {
    id: s.commit, tree_id: 'b6e5a8c1d2f3e4a5b6c7d8e9f0a1b2c3d4e5f6a7', distinct: true, message: s.message ?? 'Update the home page',
    timestamp: '2026-03-02T10:15:00+01:00', url: `${s.web}/commit/${s.commit}`,
    author: { name: s.authorName ?? 'Jane Doe', email: s.authorEmail ?? 'jane@example.com', username: 'jdoe' },
    committer: { name: 'GitHub', email: 'noreply@github.com', username: 'web-flow' },
    added: [], removed: [], modified: ['index.html'],
  };
  return {
    ref: `refs/heads/${s.branch ?? 'main'}`, before: s.before ?? 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0', after,
    base_ref: null, created: false, deleted: s.deleted ?? false, forced: false, compare: `${s.web}/compare/a1b2c3d4e5f6...${after.slice(0, 12)}`,
    commits: s.deleted ? [] : [commit], head_commit: s.deleted ? null : commit,
    repository: {
      id: 1296269, node_id: 'MDEwOlJlcG9zaXRvcnkxMjk2MjY5', name: r.name, full_name: r.fullName, private: false,
      owner: { login: r.owner, id: 1, type: 'Organization' }, html_url: s.web, url: s.web,
      git_url: `git://${r.host}/${r.fullName}.git`, ssh_url: r.ssh, clone_url: r.clone, default_branch: 'main',
    },
    pusher, sender: { login: s.pusher ?? 'octocat', id: 583231, type: 'User' },
  };
}

function push(provider: GitWebhookProvider, s: PushSpec): Delivery {
  const id = s.deliveryId ?? randomUUID();
  const r = parts(s.web);
  const json = { 'content-type': 'application/json' };
  switch (provider) {
    case 'github':
      return {
        headers: { ...json, 'x-github-event': 'push', 'x-github-delivery': id, 'x-github-hook-id': '292430182', 'user-agent': 'GitHub-Hookshot/8a0b3c4' },
        body: JSON.stringify(githubLikePush(s, { name: s.pusher ?? 'octocat', email: 'octocat@github.com' })),
      };
    case 'gitea':
    case 'forgejo': {
      const body = githubLikePush(s, { id: 1, login: s.pusher ?? 'gitea', full_name: 'Gitea Admin', email: 'admin@gitea.example', username: s.pusher ?? 'gitea' });
      delete (body as Record<string, unknown>).head_commit; // older Gitea versions send only `commits`
      const gitea = { 'x-gitea-event': 'push', 'x-gitea-event-type': 'push', 'x-gitea-delivery': id, 'x-github-event': 'push', 'x-github-delivery': id, 'x-gogs-event': 'push', 'x-gogs-delivery': id };
      const forgejo: Record<string, string> = provider === 'forgejo' ? { 'x-forgejo-event': 'push', 'x-forgejo-event-type': 'push', 'x-forgejo-delivery': id } : {};
      return { headers: { ...json, ...gitea, ...forgejo, 'user-agent': 'Go-http-client/1.1' }, body: JSON.stringify(body) };
    }
    case 'gitlab': {
      const project = {
        id: 15, name: r.name, description: '', web_url: s.web, avatar_url: null, git_ssh_url: r.ssh, git_http_url: r.clone,
        namespace: r.owner, visibility_level: 0, path_with_namespace: r.fullName, default_branch: 'main', homepage: s.web, url: r.ssh, ssh_url: r.ssh, http_url: r.clone,
      };
      const after = s.deleted ? ZERO : s.commit;
      return {
        headers: {
          ...json, 'x-gitlab-event': 'Push Hook', 'x-gitlab-event-uuid': id, 'x-gitlab-webhook-uuid': '16be8d02-3b4a-4c6e-9a2f-0d5c7e1b2a33',
          'x-gitlab-instance': `https://${r.host}`, 'user-agent': 'GitLab/17.9.0',
        },
        body: JSON.stringify({
          object_kind: 'push', event_name: 'push', before: s.before ?? '95790bf891e76fee5e1747ab589903a6a1f80f22', after, ref: `refs/heads/${s.branch ?? 'main'}`,
          ref_protected: true, checkout_sha: s.deleted ? null : s.commit, message: null, user_id: 4, user_name: 'John Smith', user_username: s.pusher ?? 'jsmith',
          user_email: '', user_avatar: 'https://s.gravatar.com/avatar/d4c74594d841139328695756648b6bd6?s=80', project_id: 15, project,
          repository: { name: r.name, url: r.ssh, description: '', homepage: s.web, git_http_url: r.clone, git_ssh_url: r.ssh, visibility_level: 0 },
          commits: s.deleted ? [] : [{
            id: s.commit, message: `${s.message ?? 'Update the home page'}\n`, title: s.message ?? 'Update the home page', timestamp: '2026-03-02T10:15:00+01:00',
            url: `${s.web}/-/commit/${s.commit}`, author: { name: s.authorName ?? 'Jane Doe', email: s.authorEmail ?? 'jane@example.com' },
            added: [], modified: ['index.html'], removed: [],
          }],
          total_commits_count: s.deleted ? 0 : 1,
        }),
      };
    }
    case 'bitbucket': {
      const repository = {
        type: 'repository', full_name: r.fullName, name: r.name, uuid: '{7c2a8a9e-1f9d-4a3b-b5c6-2d0e8f4a6b1c}', is_private: true, scm: 'git',
        links: { self: { href: `https://api.bitbucket.org/2.0/repositories/${r.fullName}` }, html: { href: s.web }, avatar: { href: `${s.web}/avatar/32/` } },
      };
      const target = {
        type: 'commit', hash: s.commit, date: '2026-03-02T09:15:00+00:00', message: `${s.message ?? 'Update the home page'}\n`,
        author: { type: 'author', raw: `${s.authorName ?? 'Jane Doe'} <${s.authorEmail ?? 'jane@example.com'}>`, user: { display_name: s.authorName ?? 'Jane Doe', type: 'user' } },
        parents: [{ type: 'commit', hash: s.before ?? '3f1e9b2c7d4a5e6f8a9b0c1d2e3f4a5b6c7d8e9f' }],
      };
      const branch = { type: 'branch', name: s.branch ?? 'main' };
      return {
        headers: {
          ...json, 'x-event-key': 'repo:push', 'x-hook-uuid': 'c3b5a1e2-7f4d-4b8a-9e6c-0a2d4f6b8c1e', 'x-request-uuid': id, 'x-attempt-number': '1',
          'user-agent': 'Bitbucket-Webhooks/2.0',
        },
        body: JSON.stringify({
          push: { changes: [{
            new: s.deleted ? null : { ...branch, target }, old: { ...branch, target: { type: 'commit', hash: s.before ?? '3f1e9b2c7d4a5e6f8a9b0c1d2e3f4a5b6c7d8e9f' } },
            created: false, forced: false, closed: s.deleted ?? false, truncated: false, commits: s.deleted ? [] : [target],
          }] },
          actor: { type: 'user', display_name: 'Jane Doe', uuid: '{e6b1c2d3-4a5b-6c7d-8e9f-0a1b2c3d4e5f}', account_id: '557058:1a2b3c', nickname: s.pusher ?? 'jdoe' },
          repository,
        }),
      };
    }
  }
}

export const pushDelivery = push;

/** a delivery with the signature headers the provider adds for `secret` */
export function signed(provider: GitWebhookProvider, d: Delivery, secret: string): Delivery {
  return { headers: { ...d.headers, ...signatureHeaders(provider, d.body, secret) }, body: d.body };
}

/** non-push events: GitHub ping and pull_request, GitLab Merge Request Hook, Bitbucket pullrequest:created */
export interface PullRequestOptions {
  action?: string; number?: number; merged?: boolean; head?: string; base?: string;
  /** the head branch is in this other repository (a fork's full name) */
  fork?: string;
  /** the pull request's description */
  body?: string;
}

export function otherDelivery(kind: 'github-ping' | 'github-pr' | 'gitlab-mr' | 'bitbucket-pr', web: string, commit: string, pr: PullRequestOptions = {}): Delivery {
  const r = parts(web);
  const json = { 'content-type': 'application/json' };
  const repository = { name: r.name, full_name: r.fullName, html_url: web, clone_url: r.clone, ssh_url: r.ssh };
  switch (kind) {
    case 'github-ping':
      return { headers: { ...json, 'x-github-event': 'ping', 'x-github-delivery': randomUUID() }, body: JSON.stringify({ zen: 'Keep it logically awesome.', hook_id: 292430182, repository }) };
    case 'github-pr':
      return {
        headers: { ...json, 'x-github-event': 'pull_request', 'x-github-delivery': randomUUID() },
        body: JSON.stringify({
          action: pr.action ?? 'opened', number: pr.number ?? 42, repository, sender: { login: 'octocat' },
          pull_request: {
            number: pr.number ?? 42, title: 'Add a login page', state: pr.action === 'closed' ? 'closed' : 'open', merged: pr.merged ?? false,
            body: pr.body ?? null,
            head: { ref: pr.head ?? 'feature/login', sha: commit, repo: { id: pr.fork ? 2002 : 1001, full_name: pr.fork ?? r.fullName } },
            base: { ref: pr.base ?? 'main', sha: 'a'.repeat(40), repo: { id: 1001, full_name: r.fullName } },
          },
        }),
      };
    case 'gitlab-mr':
      return {
        headers: { ...json, 'x-gitlab-event': 'Merge Request Hook', 'x-gitlab-event-uuid': randomUUID() },
        body: JSON.stringify({
          object_kind: 'merge_request', event_type: 'merge_request', user: { username: 'jsmith', name: 'John Smith' },
          project: { web_url: web, git_http_url: r.clone, git_ssh_url: r.ssh },
          object_attributes: {
            iid: pr.number ?? 7, title: 'Add a login page', description: pr.body ?? '', action: pr.action ?? 'open', state: 'opened',
            source_branch: pr.head ?? 'feature/login', target_branch: pr.base ?? 'main', last_commit: { id: commit, message: 'Login' },
            source_project_id: pr.fork ? 22 : 11, target_project_id: 11,
            source: { path_with_namespace: pr.fork ?? r.fullName }, target: { path_with_namespace: r.fullName },
          },
        }),
      };
    case 'bitbucket-pr':
      return {
        headers: { ...json, 'x-event-key': 'pullrequest:created', 'x-request-uuid': randomUUID() },
        body: JSON.stringify({
          actor: { display_name: 'Jane Doe', nickname: 'jdoe' }, repository: { full_name: r.fullName, links: { html: { href: web } } },
          pullrequest: {
            id: pr.number ?? 3, title: 'Add a login page', description: pr.body ?? '', state: 'OPEN',
            source: { branch: { name: pr.head ?? 'feature/login' }, commit: { hash: commit.slice(0, 12) }, repository: { full_name: pr.fork ?? r.fullName } },
            destination: { branch: { name: pr.base ?? 'main' }, repository: { full_name: r.fullName } },
          },
        }),
      };
  }
}
