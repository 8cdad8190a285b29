// Response shapes of preview environments: one preview (a pull request of an environment and the
// copy made for it) and the environment's list of them.
import { Type, type Static } from 'typebox';
import { BaseRecord, NullableString, Paginated, Uuid } from '../../http/schemas.ts';

export const Preview = Type.Object({
  ...BaseRecord,
  environment: Type.Object({ id: Uuid }, { description: 'the environment the preview is a copy of' }),
  provider: Type.String({ description: 'GITHUB, GITLAB, BITBUCKET or GITEA' }),
  repository_url: Type.String({ description: 'the repository the pull request is in (as the provider gave it)' }),
  pull_request_number: Type.Integer({ description: 'the pull (merge) request\'s number at the provider' }),
  title: Type.String(),
  author: NullableString,
  base_branch: Type.String({ description: 'the branch the pull request goes into: the one the previewed services track' }),
  head_branch: Type.String({ description: 'the pull request\'s branch: what the previewed services build in the copy' }),
  head_commit: Type.String({ description: 'the newest commit of the pull request berth has seen (deployed in the copy when OPEN)' }),
  preview_environment_id: Type.Union([Uuid, Type.Null()], { description: 'the copy (an environment of mode PREVIEW); null when none exists' }),
  preview_environment_name: NullableString,
  state: Type.Union([Type.Literal('OPEN'), Type.Literal('REFUSED'), Type.Literal('FAILED'), Type.Literal('CLOSED'), Type.Literal('AWAITING_APPROVAL')], {
    description: 'OPEN: the copy exists (deployed or deploying); REFUSED: the environment had as many open previews as allowed '
      + '(PREVIEW_MAX_PER_ENVIRONMENT); FAILED: the copy could not be made; CLOSED: the copy was deleted (the pull request closed, '
      + 'the copy expired or was deleted); AWAITING_APPROVAL: a pull request from a fork, waiting for someone who may deploy the '
      + 'environment to approve its head commit (nothing made or redeployed until then; an approved copy stays at the approved commit). '
      + '`message` says why',
  }),
  message: NullableString,
  from_fork: Type.Boolean({ description: 'the pull request\'s branch is in another repository (a fork): each head commit waits for approval' }),
  approved_by: Type.Union([Type.String(), Type.Null()], { description: 'who last approved a head commit of this pull request from a fork' }),
  approved_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'when' }),
  provider_status: Type.Union([Type.Object({
    reporting: Type.Boolean({ description: 'false: berth posts nothing to the provider for this pull request (`reason` says why)' }),
    reason: NullableString,
    last_error: Type.Union([Type.String(), Type.Null()], { description: 'the last failed attempt to post (retried with back-off)' }),
    last_posted_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  }), Type.Null()], { description: 'how berth reports this pull request\'s deployments to the provider (statuses on the commit, one comment edited in place; '
    + 'README "Pull requests"); null until something was reported' }),
});
export type Preview = Static<typeof Preview>;
export const PreviewList = Paginated(Preview);
