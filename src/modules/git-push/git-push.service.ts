// Deploy on push: the organization's git webhook (a secret per organization, sealed at rest and
// shown once, ADMIN and above; one URL per provider), the public receiving end (signature
// checked over the raw body first: 401 and nothing else when it fails; a replayed delivery id
// changes nothing; events other than a branch push are acknowledged and ignored), and what the
// poller calls: the services tracking a branch and the step from a seen head to a deployment
// (git-push.heads.ts).
import type { Db } from '../../db/db.ts';
import { randomSecret, type Sealer } from '../../lib/crypto.ts';
import { notFound, unauthorized } from '../../lib/errors.ts';
import { isoRequired } from '../../lib/text.ts';
import type { Principal } from '../access/principal.ts';
import type { DeploymentsService } from '../deployments/deployments.service.ts';
import type { OrganizationsService } from '../organizations/organizations.service.ts';
import type { PreviewOutcome, PreviewsService, PullRequestEvent } from '../previews/previews.service.ts';
import { parseDelivery, type GitEvent, type ParsedDelivery } from './events.ts';
import { headSeen, releaseWaiting, trackedServices, type PushOutcome, type SeenPush, type TrackedService } from './git-push.heads.ts';
import * as repo from './git-push.repo.ts';
import { repositoryKey } from './git-push.rules.ts';
import { pullRequestEvent } from './pull-requests.ts';
import type { GitWebhookCreated, GitWebhookReceipt, GitWebhookSettings } from './git-push.schemas.ts';
import { GIT_WEBHOOK_PROVIDERS, header, verifySignature, type GitWebhookProvider, type Headers } from './signatures.ts';

export type { PushOutcome, TrackedService } from './git-push.heads.ts';

/** the largest delivery accepted (GitHub caps payloads at 25 MB; a push's list of commits is the bulk) */
export const GIT_WEBHOOK_BODY_LIMIT = 5 * 1024 * 1024;
/** how long delivery ids are remembered against replays */
const DELIVERY_RETENTION_DAYS = 7;

const PROVIDER_NAMES: Record<GitWebhookProvider, string> = { github: 'GitHub', gitlab: 'GitLab', bitbucket: 'Bitbucket', gitea: 'Gitea', forgejo: 'Forgejo' };

export interface GitPushService {
  settings(p: Principal, organizationId: string): Promise<GitWebhookSettings>;
  /** a new secret (replacing any): deliveries signed with the old one are refused from now on */
  createSecret(p: Principal, organizationId: string): Promise<GitWebhookCreated>;
  deleteSecret(p: Principal, organizationId: string): Promise<void>;
  /** a provider's delivery (no Authorization: the signature is the credential) */
  receive(input: { organizationId: string; provider: GitWebhookProvider; headers: Headers; body: Buffer }): Promise<GitWebhookReceipt>;
  /** the services that deploy on push, of some organizations or all (null) */
  tracked(organizationIds: readonly string[] | null): Promise<TrackedService[]>;
  /** the head seen on the branch `services` track (the poller's way in; first sight records only) */
  headPolled(services: TrackedService[], push: SeenPush): Promise<PushOutcome[]>;
  /** commits that waited for a deployment window that is open `now` are deployed */
  releaseWaiting(tracked: TrackedService[], organizationIds: readonly string[] | null, now?: Date): Promise<PushOutcome[]>;
  /** forgets the heads of services no longer tracked and delivery ids past their retention */
  housekeeping(tracked: TrackedService[], organizationIds: readonly string[] | null): Promise<{ heads: number; deliveries: number }>;
}

export function createGitPushService(deps: {
  db: Db; sealer: Sealer; publicUrl: string; pollIntervalSeconds: number; organizations: OrganizationsService; deployments: DeploymentsService;
  previews: Pick<PreviewsService, 'onPullRequest'>;
}): GitPushService {
  const { db, sealer, organizations } = deps;
  const heads = { deployments: deps.deployments };

  function settingsOf(organizationId: string, row: repo.SecretRow | null): GitWebhookSettings {
    return {
      organization_id: organizationId, secret_set: row !== null, created_at: row ? isoRequired(row.created_at) : null,
      urls: Object.fromEntries(GIT_WEBHOOK_PROVIDERS.map((p) => [p, `${deps.publicUrl}/gitWebhook/${organizationId}/${p}`])),
      poll_interval_seconds: deps.pollIntervalSeconds,
    };
  }

  async function tracked(organizationIds: readonly string[] | null): Promise<TrackedService[]> {
    return trackedServices(await repo.candidateServices(db, organizationIds));
  }

  const receipt = (provider: GitWebhookProvider, event: string, deliveryId: string | null, ignored: string | null,
    results: PushOutcome[] = [], previews: PreviewOutcome[] = []): GitWebhookReceipt =>
    ({ provider, event, delivery_id: deliveryId, ignored, results, previews });

  /** why a push event deploys nothing whatever tracks it, or null */
  function ignoredPush(e: GitEvent): string | null {
    if (e.kind !== 'push') return `${e.kind} events are not acted on`;
    if (e.deleted) return `the push deleted branch ${e.branch}`;
    if (!e.branch || !e.commit || !/^[0-9a-f]{40,64}$/i.test(e.commit)) return 'the push names no branch and commit';
    return null;
  }

  /** a pull request's preview environments opened, refreshed or closed (src/modules/previews) */
  async function pullRequests(organizationId: string, provider: GitWebhookProvider, eventName: string, delivery: ParsedDelivery): Promise<GitWebhookReceipt> {
    const mapped = delivery.events.map((e) => pullRequestEvent(provider, organizationId, e));
    const events = mapped.filter((m): m is PullRequestEvent => !('ignored' in m));
    if (events.length === 0) return receipt(provider, eventName, delivery.deliveryId, mapped.map((m) => ('ignored' in m ? m.ignored : '')).find(Boolean) ?? 'nothing to act on');
    const id = delivery.deliveryId;
    // a replayed "opened" after the close would open the preview again
    if (id && !await db.transaction((tx) => repo.recordDelivery(tx, organizationId, provider, id))) {
      return receipt(provider, eventName, id, `delivery ${id} was already received: a replay changes nothing`);
    }
    const outcomes: PreviewOutcome[] = [];
    try {
      for (const e of events) outcomes.push(...await deps.previews.onPullRequest(e));
    } catch (err) {
      if (id) await repo.forgetDelivery(db, organizationId, provider, id).catch(() => {});
      throw err;
    }
    return receipt(provider, eventName, id, outcomes.length ? null : 'no environment previews pull requests into this branch of this repository (auto_preview)', [], outcomes);
  }

  return {
    async settings(p, organizationId) {
      await organizations.authorize(p, organizationId, 'manage');
      return settingsOf(organizationId, await repo.findSecret(db, organizationId));
    },
    async createSecret(p, organizationId) {
      await organizations.authorize(p, organizationId, 'manage');
      const secret = `bgw_${randomSecret(32)}`;
      const row = await repo.saveSecret(db, organizationId, sealer.seal(secret));
      return { ...settingsOf(organizationId, row), secret };
    },
    async deleteSecret(p, organizationId) {
      await organizations.authorize(p, organizationId, 'manage');
      if (!await repo.deleteSecret(db, organizationId)) throw notFound('Git webhook secret');
    },
    async receive({ organizationId, provider, headers, body }) {
      // one answer for an unknown organization, no secret and a bad signature: nothing to probe
      const stored = await repo.findSecret(db, organizationId);
      const name = PROVIDER_NAMES[provider];
      if (!stored) throw unauthorized(`The ${name} webhook signature does not check out: this organization has no git webhook secret (POST /organization/{id}/gitWebhook makes one)`);
      const verdict = verifySignature(provider, headers, body, sealer.open(stored.secret));
      if (!verdict.ok) throw unauthorized(`The ${name} webhook signature does not check out: ${verdict.reason}`);
      const delivery = parseDelivery(provider, headers, body);
      const eventName = delivery.events[0]?.name ?? '';
      if (delivery.events.some((e) => e.kind === 'pull_request')) return pullRequests(organizationId, provider, eventName, delivery);
      const pushes = delivery.events.filter((e) => ignoredPush(e) === null);
      if (pushes.length === 0) return receipt(provider, eventName, delivery.deliveryId, delivery.events.map(ignoredPush).find((r) => r) ?? 'nothing to act on');
      const services = await tracked([organizationId]);
      const matches = pushes.map((e) => {
        const keys = new Set(e.repositoryUrls.map(repositoryKey).filter((k): k is string => k !== null));
        return { e, services: services.filter((s) => keys.has(s.repositoryKey) && s.source.branch === e.branch) };
      }).filter((m) => m.services.length > 0);
      if (matches.length === 0) {
        return receipt(provider, eventName, delivery.deliveryId, `no service with auto_deploy tracks ${pushes.map((e) => `${e.branch} of ${e.repositoryUrls[0] ?? 'this repository'}`).join(', ')}`);
      }
      return db.transaction(async (tx) => {
        if (delivery.deliveryId && !await repo.recordDelivery(tx, organizationId, provider, delivery.deliveryId)) {
          return receipt(provider, eventName, delivery.deliveryId, `delivery ${delivery.deliveryId} was already received: a replay changes nothing`);
        }
        const results: PushOutcome[] = [];
        for (const { e, services: targets } of matches) {
          results.push(...await headSeen(tx, heads, targets, {
            provider: name, via: 'webhook', branch: e.branch!, commit: e.commit!.toLowerCase(), pusher: e.pusher, author: e.author,
            message: e.message, repositoryUrl: e.repositoryUrls[0] ?? '', deliveryId: delivery.deliveryId, userAgent: header(headers, 'user-agent'),
          }, { deployFirstSight: true }));
        }
        return receipt(provider, eventName, delivery.deliveryId, null, results);
      });
    },
    tracked,
    headPolled(services, push) {
      return db.transaction((tx) => headSeen(tx, heads, services, push, { deployFirstSight: false }));
    },
    releaseWaiting(trackedNow, organizationIds, now = new Date()) {
      return releaseWaiting(db, heads, trackedNow, organizationIds, now);
    },
    async housekeeping(trackedNow, organizationIds) {
      return {
        heads: await repo.forgetHeads(db, trackedNow.map((s) => s.id), organizationIds),
        deliveries: organizationIds === null ? await repo.pruneDeliveries(db, DELIVERY_RETENTION_DAYS) : 0,
      };
    },
  };
}
