// Run-scoped credentials (decision 0197): minted when an agentic workflow run starts, found by the
// SHA-256 of the secret, revoked when the run ends. The secret itself is never stored.
import { randomBytes } from 'node:crypto';
import type { Queryable } from '../../db/db.ts';
import { sha256Hex } from '../../lib/crypto.ts';
import type { RunScope } from '../access/principal.ts';
import { RUN_CREDENTIAL_PREFIX } from './run-credentials.rules.ts';

export interface MintInput {
  organizationId: string; runId: string; workflowId: string; environmentId: string;
  serviceIds: string[]; mayAct: boolean; expiresAt: Date;
}

/** a new credential for the run; the secret is returned once, here */
export async function mintRunCredential(db: Queryable, input: MintInput): Promise<string> {
  const secret = RUN_CREDENTIAL_PREFIX + randomBytes(32).toString('base64url');
  await db.query(`insert into run_credentials (token_hash, organization_id, run_id, workflow_id, environment_id, service_ids, may_act, expires_at)
    values ($1, $2, $3, $4, $5, $6::uuid[], $7, $8)`,
  [sha256Hex(secret), input.organizationId, input.runId, input.workflowId, input.environmentId, input.serviceIds, input.mayAct, input.expiresAt]);
  return secret;
}

/** every credential of the run stops working now; the ids revoked (for the caches) */
export async function revokeRunCredentials(db: Queryable, runId: string): Promise<string[]> {
  const rows = await db.query<{ id: string }>('update run_credentials set revoked_at = now() where run_id = $1 and revoked_at is null returning id', [runId]);
  return rows.map((r) => r.id);
}

export interface LiveCredential { id: string; organizationId: string; scope: RunScope }

/** the credential with this secret, when it is neither revoked nor expired */
export async function findLiveCredential(db: Queryable, secret: string): Promise<LiveCredential | null> {
  const rows = await db.query<{
    id: string; organization_id: string; run_id: string; workflow_id: string; environment_id: string;
    service_ids: string[]; may_act: boolean; expires_at: Date | string;
  }>(`select id, organization_id, run_id, workflow_id, environment_id, service_ids, may_act, expires_at from run_credentials
      where token_hash = $1 and revoked_at is null and expires_at > now()`, [sha256Hex(secret)]);
  const r = rows[0];
  if (!r) return null;
  return {
    id: r.id, organizationId: r.organization_id,
    scope: {
      runId: r.run_id, workflowId: r.workflow_id, environmentId: r.environment_id, serviceIds: r.service_ids,
      mayAct: r.may_act, expiresAt: new Date(r.expires_at).getTime(),
    },
  };
}
