// One small client per git provider, over the webhooks' guarded transport (sendJson: private
// addresses refused unless WEBHOOK_ALLOW_PRIVATE_TARGETS, the checked address is the one
// connected to; no fetch, no SDK: decision 0740). Each does three things: post the status of a
// deployment on its commit (GitHub: a Deployment and its deployment statuses; GitLab and Gitea:
// a commit status; Bitbucket: a build status), create the pull request's comment and edit it.
// A call answers with the provider's HTTP status (null: no answer) and what berth keeps (ids).
import { sendJson } from '../webhooks/webhooks.http.ts';
import { PROVIDER_STATES, type Outcome, type ProviderFamily } from './provider-status.rules.ts';

export interface ProviderTarget {
  family: ProviderFamily;
  /** the API base (no trailing slash) */
  api: string;
  /** owner/name (GitLab: the project's full path; Bitbucket: workspace/slug) */
  repository: string;
  token: string;
}

export interface StatusPost {
  commit: string; outcome: Outcome; description: string;
  /** the status' name (GitLab name, Gitea context, Bitbucket key and name); GitHub: the environment */
  context: string;
  /** the service's URL (environment_url, target_url, url) */
  url: string | null;
  /** GitHub: the Deployment made at the first stage (null: make it now) */
  deploymentId: string | null;
  transient: boolean;
  /** a commit status rather than a deployment (an agent run's verdict); only GitHub tells them apart */
  check?: boolean;
}

export interface Answer { status: number | null; error: string | null; id: string | null }

export interface TransportOptions { allowPrivate: boolean; timeoutMs: number }

const enc = (s: string) => s.split('/').map(encodeURIComponent).join('/');

function authHeader(t: ProviderTarget): Record<string, string> {
  switch (t.family) {
    case 'GITHUB': return { authorization: `Bearer ${t.token}`, accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28' };
    case 'GITLAB': return { authorization: `Bearer ${t.token}` };
    case 'GITEA': return { authorization: `token ${t.token}` };
    case 'BITBUCKET': return { authorization: `Bearer ${t.token}` };
  }
}

async function call(t: ProviderTarget, o: TransportOptions, method: string, path: string, body: unknown): Promise<Answer> {
  const r = await sendJson(method, `${t.api}${path}`, JSON.stringify(body), { ...authHeader(t), 'user-agent': 'berth-provider-status/1' },
    { ...o, maxBodyBytes: 64 * 1024 });
  let id: string | null = null;
  if (r.status !== null && r.status < 300 && r.body) {
    try {
      const parsed = JSON.parse(r.body) as { id?: unknown };
      if (typeof parsed.id === 'number' || typeof parsed.id === 'string') id = String(parsed.id);
    } catch { /* no JSON: nothing to keep */ }
  }
  const error = r.error ?? (r.status !== null && r.status >= 300 ? `${r.status}${r.body ? `: ${r.body.replace(/\s+/g, ' ').slice(0, 300)}` : ''}` : null);
  return { status: r.status, error, id };
}

/** GitHub's commit status states (a check such as an agent's verdict), where its deployment statuses have their own */
const GITHUB_COMMIT_STATES: Record<StatusPost['outcome'], string> = { queued: 'pending', in_progress: 'pending', success: 'success', failure: 'failure', canceled: 'error' };

/** posts a status; for GitHub, makes the Deployment first when `deploymentId` is null (its id is the answer's `id`) */
export async function postStatus(t: ProviderTarget, o: TransportOptions, s: StatusPost): Promise<Answer> {
  const state = PROVIDER_STATES[t.family][s.outcome];
  const repo = enc(t.repository);
  switch (t.family) {
    case 'GITHUB': {
      if (s.check) {
        return call(t, o, 'POST', `/repos/${repo}/statuses/${s.commit}`, {
          state: GITHUB_COMMIT_STATES[s.outcome], context: s.context, description: s.description, ...(s.url ? { target_url: s.url } : {}),
        });
      }
      let deploymentId = s.deploymentId;
      if (deploymentId === null) {
        const made = await call(t, o, 'POST', `/repos/${repo}/deployments`, {
          ref: s.commit, environment: s.context, auto_merge: false, required_contexts: [], transient_environment: s.transient,
          production_environment: false, description: 'berth', task: 'deploy',
        });
        if (made.error || !made.id) return { ...made, error: made.error ?? 'GitHub made no deployment (no id in its answer)' };
        deploymentId = made.id;
      }
      const posted = await call(t, o, 'POST', `/repos/${repo}/deployments/${encodeURIComponent(deploymentId)}/statuses`, {
        state, description: s.description, ...(s.url ? { environment_url: s.url } : {}), auto_inactive: false,
      });
      return { ...posted, id: deploymentId };
    }
    case 'GITLAB':
      return call(t, o, 'POST', `/projects/${encodeURIComponent(t.repository)}/statuses/${s.commit}`, {
        state, name: s.context, description: s.description, ...(s.url ? { target_url: s.url } : {}),
      });
    case 'GITEA':
      return call(t, o, 'POST', `/repos/${repo}/statuses/${s.commit}`, {
        state, context: s.context, description: s.description, ...(s.url ? { target_url: s.url } : {}),
      });
    case 'BITBUCKET':
      return call(t, o, 'POST', `/repositories/${repo}/commit/${s.commit}/statuses/build`, {
        key: s.context.slice(0, 40), name: s.context, state, description: s.description, url: s.url ?? 'https://berth.invalid/',
      });
  }
}

/** creates the pull request's comment (the answer's `id` is the comment's) */
export function createComment(t: ProviderTarget, o: TransportOptions, pullRequest: number, body: string): Promise<Answer> {
  const repo = enc(t.repository);
  switch (t.family) {
    case 'GITHUB':
    case 'GITEA': return call(t, o, 'POST', `/repos/${repo}/issues/${pullRequest}/comments`, { body });
    case 'GITLAB': return call(t, o, 'POST', `/projects/${encodeURIComponent(t.repository)}/merge_requests/${pullRequest}/notes`, { body });
    case 'BITBUCKET': return call(t, o, 'POST', `/repositories/${repo}/pullrequests/${pullRequest}/comments`, { content: { raw: body } });
  }
}

/** edits the comment in place */
export async function editComment(t: ProviderTarget, o: TransportOptions, pullRequest: number, commentId: string, body: string): Promise<Answer> {
  const repo = enc(t.repository);
  const id = encodeURIComponent(commentId);
  const r = await (() => {
    switch (t.family) {
      case 'GITHUB':
      case 'GITEA': return call(t, o, 'PATCH', `/repos/${repo}/issues/comments/${id}`, { body });
      case 'GITLAB': return call(t, o, 'PUT', `/projects/${encodeURIComponent(t.repository)}/merge_requests/${pullRequest}/notes/${id}`, { body });
      case 'BITBUCKET': return call(t, o, 'PUT', `/repositories/${repo}/pullrequests/${pullRequest}/comments/${id}`, { content: { raw: body } });
    }
  })();
  return { ...r, id: commentId };
}
