// Shapes of deploy on push: the organization's git webhook settings (the URL per provider; the
// secret only in the answer that created it) and the receipt a provider gets for a delivery.
import { Type, type Static } from 'typebox';
import { NullableString, Timestamp, Uuid } from '../../http/schemas.ts';
import { GIT_WEBHOOK_PROVIDERS } from './signatures.ts';

const ProviderUrls = Type.Object(Object.fromEntries(GIT_WEBHOOK_PROVIDERS.map((p) => [p, Type.String({ description: `the payload URL to give ${p}` })])) as Record<string, ReturnType<typeof Type.String>>);

export const GitWebhookSettings = Type.Object({
  organization_id: Uuid,
  secret_set: Type.Boolean({ description: 'a secret exists; deliveries are refused (401) until one does' }),
  created_at: Type.Union([Timestamp, Type.Null()], { description: 'when the current secret was made' }),
  urls: ProviderUrls,
  poll_interval_seconds: Type.Integer({ description: 'GIT_POLL_INTERVAL_SECONDS: how often tracked branches are also checked with git ls-remote (0: never)' }),
});
export type GitWebhookSettings = Static<typeof GitWebhookSettings>;

export const GitWebhookCreated = Type.Object({
  ...GitWebhookSettings.properties,
  secret: Type.String({ description: 'shown once: paste it as the webhook\'s secret (GitLab: secret token) at the provider' }),
});
export type GitWebhookCreated = Static<typeof GitWebhookCreated>;

export const GitWebhookParams = Type.Object({
  organizationId: Uuid,
  provider: Type.Union(GIT_WEBHOOK_PROVIDERS.map((p) => Type.Literal(p)), { description: 'github, gitlab, bitbucket, gitea or forgejo' }),
});

const Outcome = Type.Object({
  service_id: Uuid,
  service_name: Type.String(),
  outcome: Type.Union([Type.Literal('deployed'), Type.Literal('waiting'), Type.Literal('already_seen'), Type.Literal('recorded'), Type.Literal('skipped')], {
    description: 'deployed: a deployment of the commit was queued; waiting: for the environment\'s deployment window; already_seen: this commit was seen before (webhook, poller or replay); recorded: first sight by the poller, no deployment; skipped: see reason',
  }),
  deployment_id: Type.Union([Uuid, Type.Null()]),
  reason: NullableString,
});

const PreviewOutcome = Type.Object({
  environment_id: Uuid,
  outcome: Type.Union([Type.Literal('created'), Type.Literal('redeployed'), Type.Literal('unchanged'), Type.Literal('refused'), Type.Literal('failed'), Type.Literal('closed'), Type.Literal('ignored'), Type.Literal('awaiting_approval')], {
    description: 'created: a preview environment was made and deployed; redeployed: its services at the new commit; unchanged: that commit already; refused: the cap (PREVIEW_MAX_PER_ENVIRONMENT) is reached; failed: see message; closed: the preview environment is being deleted; ignored: see message; awaiting_approval: a pull request from a fork waits for someone who may deploy to approve its head commit (nothing made or redeployed)',
  }),
  preview_id: Type.Union([Uuid, Type.Null()]),
  preview_environment_id: Type.Union([Uuid, Type.Null()]),
  deployment_ids: Type.Array(Uuid),
  message: NullableString,
});

export const GitWebhookReceipt = Type.Object({
  provider: Type.String(),
  event: Type.String({ description: "the provider's event name (push, Push Hook, repo:push, …)" }),
  delivery_id: NullableString,
  /** why nothing was done, when nothing was */
  ignored: Type.Union([Type.String(), Type.Null()], { description: 'why the delivery changed nothing (not a push, a replay, no service tracks the branch…); null when it was acted on' }),
  results: Type.Array(Outcome, { description: 'one per service tracking the pushed branch with auto_deploy' }),
  previews: Type.Array(PreviewOutcome, { description: 'a pull request event: one per environment that previews it (auto_preview)' }),
});
export type GitWebhookReceipt = Static<typeof GitWebhookReceipt>;
