// The one place the poller asks for the credential of a repository it checks: the git token a
// service's git_repository.git_token_id names (src/modules/git-tokens), opened, with its
// provider's basic-auth user name; null for a public repository. The token goes to git only
// through its environment (ls-remote.ts).
import type { Queryable } from '../../db/db.ts';
import type { Sealer } from '../../lib/crypto.ts';
import { gitCredential, type GitCredential } from '../git-tokens/git-credentials.ts';

export async function resolveRepositoryToken(ctx: { db: Queryable; sealer: Sealer }, organizationId: string, gitTokenId: string | null): Promise<GitCredential | null> {
  return gitTokenId === null ? null : gitCredential(ctx.db, ctx.sealer, organizationId, gitTokenId);
}
