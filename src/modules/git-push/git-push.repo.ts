// SQL of deploy on push: the organization's git webhook secret (sealed), the deliveries already
// acted on, the services that track a branch, and each service's last seen head (git_push_heads)
// with the commit waiting for its deployment window.
import type { Queryable } from '../../db/db.ts';
import type { WindowRule } from './git-push.rules.ts';

export interface SecretRow { secret: string; created_at: Date }

export async function findSecret(db: Queryable, organizationId: string): Promise<SecretRow | null> {
  const rows = await db.query<SecretRow>('select secret, created_at from git_webhook_secrets where organization_id = $1', [organizationId]);
  return rows[0] ?? null;
}

export async function saveSecret(db: Queryable, organizationId: string, sealed: string): Promise<SecretRow> {
  const rows = await db.query<SecretRow>(
    `insert into git_webhook_secrets (organization_id, secret) values ($1, $2)
     on conflict (organization_id) do update set secret = excluded.secret, created_at = now() returning secret, created_at`,
    [organizationId, sealed]);
  return rows[0]!;
}

export async function deleteSecret(db: Queryable, organizationId: string): Promise<boolean> {
  return (await db.query('delete from git_webhook_secrets where organization_id = $1 returning organization_id', [organizationId])).length > 0;
}

/** records a delivery; false when it was already recorded (a replay) */
export async function recordDelivery(tx: Queryable, organizationId: string, provider: string, deliveryId: string): Promise<boolean> {
  const rows = await tx.query(
    `insert into git_push_deliveries (organization_id, provider, delivery_id) values ($1, $2, $3)
     on conflict do nothing returning delivery_id`, [organizationId, provider, deliveryId]);
  return rows.length > 0;
}

/** undoes recordDelivery when what the delivery asked for failed, so the provider's retry is not taken for a replay */
export async function forgetDelivery(db: Queryable, organizationId: string, provider: string, deliveryId: string): Promise<void> {
  await db.query('delete from git_push_deliveries where organization_id = $1 and provider = $2 and delivery_id = $3', [organizationId, provider, deliveryId]);
}

export async function pruneDeliveries(db: Queryable, olderThanDays: number): Promise<number> {
  return (await db.query(
    `delete from git_push_deliveries where received_at < now() - make_interval(days => $1::int) returning delivery_id`, [olderThanDays])).length;
}

export interface CandidateRow { id: string; organization_id: string; environment_id: string; type: string; name: string; spec: Record<string, unknown> }

/**
 * Applications and jobs that may track a branch (the exact test is trackedSource), of one
 * organization or of all, outside environments being deleted and throwaway copies.
 */
export async function candidateServices(db: Queryable, organizationIds: readonly string[] | null): Promise<CandidateRow[]> {
  return db.query<CandidateRow>(
    `select s.id, s.organization_id, s.environment_id, s.type, s.name, s.spec from services s join environments e on e.id = s.environment_id
     where s.type in ('APPLICATION', 'JOB') and not e.deleting and e.expires_at is null
       and coalesce(s.spec->>'auto_deploy', 'true') = 'true' and ($1::uuid[] is null or s.organization_id = any($1::uuid[]))
     order by s.created_at, s.id`, [organizationIds]);
}

export interface HeadRow {
  service_id: string; repository_key: string; branch: string; last_commit: string | null;
  waiting_commit: string | null; waiting_push: Record<string, unknown> | null;
}

/** the service's head row, created empty when missing, locked until the transaction ends */
export async function lockHead(tx: Queryable, serviceId: string, organizationId: string, repositoryKey: string, branch: string): Promise<HeadRow> {
  await tx.query(
    `insert into git_push_heads (service_id, organization_id, repository_key, branch) values ($1, $2, $3, $4)
     on conflict (service_id) do nothing`, [serviceId, organizationId, repositoryKey, branch]);
  const rows = await tx.query<HeadRow>(
    `select service_id, repository_key, branch, last_commit, waiting_commit, waiting_push from git_push_heads where service_id = $1 for update`,
    [serviceId]);
  return rows[0]!;
}

/** the head seen now; `waiting`: a commit (with its push) left for the deployment window, or null to clear it */
export async function setHead(tx: Queryable, serviceId: string, repositoryKey: string, branch: string, commit: string,
  waiting: { commit: string; push: Record<string, unknown> } | null): Promise<void> {
  await tx.query(
    `update git_push_heads set repository_key = $2, branch = $3, last_commit = $4, seen_at = now(), waiting_commit = $5, waiting_push = $6::jsonb
     where service_id = $1`,
    [serviceId, repositoryKey, branch, commit, waiting?.commit ?? null, waiting ? JSON.stringify(waiting.push) : null]);
}

/** clears a waiting commit when it is still the one waiting; false when another push replaced or released it */
export async function takeWaiting(tx: Queryable, serviceId: string, commit: string): Promise<boolean> {
  const rows = await tx.query(
    `update git_push_heads set waiting_commit = null, waiting_push = null where service_id = $1 and waiting_commit = $2 returning service_id`,
    [serviceId, commit]);
  return rows.length > 0;
}

export async function waitingHeads(db: Queryable, organizationIds: readonly string[] | null): Promise<Array<HeadRow & { environment_id: string }>> {
  return db.query<HeadRow & { environment_id: string }>(
    `select h.service_id, h.repository_key, h.branch, h.last_commit, h.waiting_commit, h.waiting_push, s.environment_id
     from git_push_heads h join services s on s.id = h.service_id
     where h.waiting_commit is not null and ($1::uuid[] is null or h.organization_id = any($1::uuid[]))`, [organizationIds]);
}

/** forgets the heads of services that no longer track a branch (auto_deploy turned off, source changed to an image…) */
export async function forgetHeads(db: Queryable, keepServiceIds: readonly string[], organizationIds: readonly string[] | null): Promise<number> {
  return (await db.query(
    `delete from git_push_heads where not (service_id = any($1::uuid[])) and ($2::uuid[] is null or organization_id = any($2::uuid[]))
     returning service_id`, [keepServiceIds, organizationIds])).length;
}

/** the environment's deployment rule, as stored (times HH:MM), or null */
export async function environmentWindow(db: Queryable, environmentId: string): Promise<WindowRule | null> {
  const rows = await db.query<WindowRule>(
    'select timezone, start_time, stop_time, weekdays, auto_stop from environment_deployment_rules where environment_id = $1', [environmentId]);
  return rows[0] ?? null;
}
