// A provider's pull/merge request event as the preview environments take it (src/modules/previews),
// pure: the provider's family, the action (opened, reopened, new commits, closed or merged), the
// number, title, description, branches and head commit, and whether it comes from a fork. Events
// previews have no use for (labels, reviews) are named, not passed on.
import type { PullRequestEvent, PullRequestEventAction, PullRequestProvider } from '../previews/previews.service.ts';
import type { GitEvent } from './events.ts';
import type { GitWebhookProvider } from './signatures.ts';

const PROVIDERS: Record<GitWebhookProvider, PullRequestProvider> = {
  github: 'GITHUB', gitlab: 'GITLAB', bitbucket: 'BITBUCKET', gitea: 'GITEA', forgejo: 'GITEA',
};

const ACTIONS: Partial<Record<NonNullable<GitEvent['pullRequest']>['action'], PullRequestEventAction>> = {
  opened: 'opened', reopened: 'reopened', updated: 'synchronize', closed: 'closed', merged: 'closed',
};

/** the previews' event, or why this one is not one */
export function pullRequestEvent(provider: GitWebhookProvider, organizationId: string, e: GitEvent): PullRequestEvent | { ignored: string } {
  const pr = e.pullRequest;
  if (e.kind !== 'pull_request' || !pr) return { ignored: `${e.kind} events are not acted on` };
  const action = ACTIONS[pr.action];
  if (!action) return { ignored: `pull request action "${pr.action}" changes no preview` };
  if (pr.number === null || !pr.targetBranch || !e.branch || (!e.commit && action !== 'closed')) {
    return { ignored: 'the pull request event names no number, branches or head commit' };
  }
  return {
    provider: PROVIDERS[provider], action, number: pr.number, title: pr.title ?? `#${pr.number}`,
    repositoryUrls: e.repositoryUrls, baseBranch: pr.targetBranch, headBranch: e.branch, headCommit: (e.commit ?? '').toLowerCase(),
    author: e.pusher, organizationId, fork: pr.fork, body: pr.body,
  };
}
