// Run-scoped credentials (decision 0197), for other modules: the workflows module mints them when
// an agentic workflow run starts and revokes them when it ends; authentication (identity) finds
// the live one a secret names. The SQL is in run-credentials.repo.ts, reached only through here;
// the secret's prefix is a rule (run-credentials.rules.ts).
import type { Db, Queryable } from '../../db/db.ts';
import * as repo from './run-credentials.repo.ts';

export interface RunCredentialsService {
  /** a new credential for the run, in the caller's transaction; the secret is returned once, here */
  mint(q: Queryable, input: repo.MintInput): Promise<string>;
  /** every credential of the run stops working now; the ids revoked (for the caches) */
  revoke(runId: string): Promise<string[]>;
  /** the credential with this secret, when it is neither revoked nor expired */
  findLive(secret: string): Promise<repo.LiveCredential | null>;
}

export function createRunCredentialsService(deps: { db: Db }): RunCredentialsService {
  const { db } = deps;
  return {
    mint: (q, input) => repo.mintRunCredential(q, input),
    revoke: (runId) => repo.revokeRunCredentials(db, runId),
    findLive: (secret) => repo.findLiveCredential(db, secret),
  };
}
