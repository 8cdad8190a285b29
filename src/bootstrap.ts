// First-start provisioning: the organization named by BOOTSTRAP_ORGANIZATION and an OWNER API
// token — BOOTSTRAP_TOKEN when set (idempotent at every start), otherwise a generated one written
// once to $DATA_DIR/initial-api-token (mode 0600) and announced by path, never printed.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { AppContext } from './context.ts';
import { sha256Hex } from './lib/crypto.ts';
import { provisionLocalCluster } from './modules/clusters/clusters.service.ts';

/** the organization of that name, made when missing with a local default cluster, so a fresh server is usable at once */
export async function ensureOrganization(ctx: Pick<AppContext, 'db' | 'services'>, name: string): Promise<{ id: string; created: boolean }> {
  const org = await ctx.services.organizations.ensure(name, 'created at first start');
  if (org.created) await provisionLocalCluster(ctx, org.id);
  return org;
}

export async function bootstrap(ctx: AppContext): Promise<void> {
  const { config, logger } = ctx;
  const org = await ensureOrganization(ctx, config.bootstrapOrganization);
  if (config.bootstrapToken) {
    await ctx.services.tokens.keepBootstrapToken(org.id, sha256Hex(config.bootstrapToken));
    return;
  }
  const file = join(resolve(config.dataDir), 'initial-api-token');
  if (existsSync(file) || (await ctx.services.tokens.count(org.id)) > 0) return;
  const created = await ctx.services.tokens.issue(ctx.db, org.id, 'initial', 'OWNER', 'generated at first start');
  mkdirSync(resolve(config.dataDir), { recursive: true });
  writeFileSync(file, created.token + '\n', { mode: 0o600 });
  logger.info({ file, organization: config.bootstrapOrganization }, 'initial OWNER API token written to file (read it once, then delete the file)');
}
