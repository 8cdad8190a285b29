// First-start provisioning: the organization named by BOOTSTRAP_ORGANIZATION and an OWNER API
// token — BOOTSTRAP_TOKEN when set (idempotent at every start), otherwise a generated one written
// once to $DATA_DIR/initial-api-token (mode 0600) and announced by path, never printed.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { AppContext } from './context.ts';
import { sha256Hex } from './lib/crypto.ts';
import * as orgRepo from './modules/organizations/organizations.repo.ts';
import * as tokenRepo from './modules/tokens/tokens.repo.ts';
import { provisionLocalCluster } from './modules/clusters/clusters.service.ts';

export type OrganizationProvisioner = (ctx: AppContext, organizationId: string) => Promise<void>;

/** modules that give a new bootstrap organization something (e.g. a local cluster) add themselves here */
export const bootstrapProvisioners: OrganizationProvisioner[] = [];
// the bootstrap organization gets a local default cluster, so a fresh server is usable at once
bootstrapProvisioners.push(provisionLocalCluster);

export async function ensureOrganization(ctx: AppContext, name: string): Promise<{ id: string; created: boolean }> {
  const existing = await orgRepo.findOrganizationByName(ctx.db, name);
  if (existing) return { id: existing.id, created: false };
  const org = await ctx.db.transaction((tx) => orgRepo.insertOrganization(tx, { name, description: 'created at first start' }, null));
  for (const provision of bootstrapProvisioners) await provision(ctx, org.id);
  return { id: org.id, created: true };
}

export async function bootstrap(ctx: AppContext): Promise<void> {
  const { config, logger } = ctx;
  const org = await ensureOrganization(ctx, config.bootstrapOrganization);
  if (config.bootstrapToken) {
    await tokenRepo.upsertBootstrapToken(ctx.db, org.id, sha256Hex(config.bootstrapToken));
    return;
  }
  const file = join(resolve(config.dataDir), 'initial-api-token');
  if (existsSync(file) || (await tokenRepo.countTokens(ctx.db, org.id)) > 0) return;
  const created = await ctx.services.tokens.issue(ctx.db, org.id, 'initial', 'OWNER', 'generated at first start');
  mkdirSync(resolve(config.dataDir), { recursive: true });
  writeFileSync(file, created.token + '\n', { mode: 0o600 });
  logger.info({ file, organization: config.bootstrapOrganization }, 'initial OWNER API token written to file (read it once, then delete the file)');
}
