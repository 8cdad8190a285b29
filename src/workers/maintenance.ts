// The maintenance task: drops idempotency records older than their 24 h window and stale
// invitations, deletes throwaway environment copies past their expires_at, and on the embedded
// database runs VACUUM ANALYZE (PGlite has no autovacuum).
import type { AppContext } from '../context.ts';
import { IDEMPOTENCY_TTL_HOURS } from '../http/idempotency.ts';

export async function runMaintenance(ctx: Pick<AppContext, 'db' | 'logger' | 'services'>): Promise<{ idempotencyKeys: number; invitations: number; expiredEnvironments: number }> {
  const keys = await ctx.db.query(
    `delete from idempotency_keys where created_at < now() - make_interval(hours => $1::int) returning key`, [IDEMPOTENCY_TTL_HOURS]);
  const invites = await ctx.db.query(
    `delete from invitations where status = 'PENDING' and expires_at < now() - interval '30 days' returning id`);
  const expiredEnvironments = await ctx.services.environments.removeExpired();
  if (ctx.db.kind === 'pglite') await ctx.db.exec('VACUUM ANALYZE');
  const result = { idempotencyKeys: keys.length, invitations: invites.length, expiredEnvironments };
  ctx.logger.info(result, 'maintenance done');
  return result;
}
