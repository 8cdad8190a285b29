// How the rest of berth uses git tokens, without authorization (callers have done it): the
// service modules refuse a git_token_id that is not a token of the service's organization (400
// naming the member), and the engine's plans (runtime plan, agent runs) unseal a repository's
// token for the clone. The token then reaches git through its environment only (GIT_CONFIG_*,
// src/engine/docker/source.ts): never argv, a log line, a response or a container.
import type { Queryable } from '../../db/db.ts';
import type { GitPlan } from '../../engine/index.ts';
import type { Sealer } from '../../lib/crypto.ts';
import { badRequest } from '../../lib/errors.ts';
import * as repo from './git-tokens.repo.ts';
import { basicAuthUsername } from './git-tokens.rules.ts';

/** a git token reference in a service's request: the id (null: none) and the member it was sent in */
export interface GitTokenRef { id: string | null | undefined; field: string }

/**
 * 400 naming the member when a referenced token is not a git token of the organization (unknown,
 * or another organization's: the same answer, so ids of other organizations are not revealed).
 */
export async function requireGitTokens(db: Queryable, organizationId: string, refs: readonly GitTokenRef[]): Promise<void> {
  const named = refs.filter((r): r is { id: string; field: string } => typeof r.id === 'string');
  if (named.length === 0) return;
  const found = await repo.existingGitTokenIds(db, organizationId, [...new Set(named.map((r) => r.id.toLowerCase()))]);
  const missing = named.find((r) => !found.has(r.id.toLowerCase()));
  if (missing) throw badRequest(`${missing.field}: ${missing.id} is not a git token of this organization (see /organization/{id}/gitToken)`, 'unknown_git_token');
}

/** what git sends for a token: the unsealed token and its provider's basic-auth user name */
export interface GitCredential { token: string; username: string }

/**
 * The credential of a git token of the organization (read with the caller's handle, so it works
 * inside a transaction); an Error naming the token when it is gone (a deployment then fails
 * saying so, before anything is cloned).
 */
export async function gitCredential(db: Queryable, sealer: Sealer, organizationId: string, gitTokenId: string): Promise<GitCredential> {
  const r = await repo.findGitToken(db, organizationId, gitTokenId);
  if (!r) throw new Error(`git token ${gitTokenId} no longer exists in this organization; give the service another token (or none)`);
  return { token: sealer.open(r.tokenSealed), username: basicAuthUsername(r.type) };
}

/** a stored repository (an application's, a git job's) as the engine clones it, its token unsealed */
export async function gitPlanOf(db: Queryable, sealer: Sealer, organizationId: string,
  repository: { url: string; branch: string; root_path: string; git_token_id: string | null }): Promise<GitPlan> {
  const credential = repository.git_token_id ? await gitCredential(db, sealer, organizationId, repository.git_token_id) : null;
  return {
    url: repository.url, branch: repository.branch, commit: null, rootPath: repository.root_path,
    token: credential?.token ?? null, username: credential?.username ?? null,
  };
}

/** what berth needs to call a provider's API with a git token (src/modules/provider-status) */
export interface GitApiCredential {
  token: string; type: string; gitApiUrl: string; workspace: string | null;
  /** when the token was last set or edited: a provider's refusal holds until it changes */
  changedAt: string;
}

/** a git token of the organization for a provider's API, unsealed; null when it is gone */
export async function gitApiCredential(db: Queryable, sealer: Sealer, organizationId: string, gitTokenId: string): Promise<GitApiCredential | null> {
  const r = await repo.findGitToken(db, organizationId, gitTokenId);
  if (!r) return null;
  return { token: sealer.open(r.tokenSealed), type: r.type, gitApiUrl: r.gitApiUrl, workspace: r.workspace, changedAt: r.updatedAt ?? r.createdAt };
}
