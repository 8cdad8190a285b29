// Authentication: turns an Authorization header into a Principal, or refuses with 401.
// `Token <api token>`: looked up by SHA-256 hash (cached briefly; deleting a token evicts it here
// at once and in other processes within TOKEN_TTL_MS). `Bearer <jwt>`: verified against the
// OIDC provider's JWKS (jose caches keys and refetches on an unknown kid, so rotation works),
// issuer, audience and expiry; the user is recorded on first sight.
// A connection remembers the last header it authenticated with its cache entry: a keep-alive
// client sending the same header again is known without hashing it (issue 15). The header is
// held only as long as the connection that sent it; an evicted entry is expired in place, so the
// connection's next request is refused like any other.
// `Token brun_…`: a workflow run's credential (decision 0197), looked up on every request and never
// cached, so a revoked or expired one is refused at once in every process.
// jose is loaded on the first JWT (a server without OIDC never needs it: 14 MiB)
import { CACHE_LIMIT, rememberBounded } from '../../lib/bounded-map.ts';
import type { createRemoteJWKSet, JWTPayload } from 'jose';
import type { Config } from '../../config/config.ts';
import type { Db } from '../../db/db.ts';
import { sha256Hex } from '../../lib/crypto.ts';
import { unauthorized } from '../../lib/errors.ts';
import type { Principal } from '../access/principal.ts';
import type { Role } from '../access/roles.ts';
import { RUN_CREDENTIAL_PREFIX } from '../run-credentials/run-credentials.rules.ts';
import type { RunCredentialsService } from '../run-credentials/run-credentials.service.ts';
import * as repo from './identity.repo.ts';

/** `<scheme> <secret>` of an Authorization header, the scheme in lower case */
function credentials(authorization: string | undefined): { scheme: string; secret: string } | undefined {
  const match = authorization ? /^(\w+)\s+(\S+)\s*$/.exec(authorization) : null;
  return match ? { scheme: match[1]!.toLowerCase(), secret: match[2]! } : undefined;
}

const TOKEN_TTL_MS = 10_000;
const JWT_CACHE_MAX_MS = 60_000;

export interface IdentityService {
  authenticate(authorization: string | undefined): Promise<Principal>;
  /** the principal of a header seen recently (cached and not expired), at once; else undefined.
   * `connection`: the socket the request came on (its last header is remembered) */
  cached(authorization: string | undefined, connection?: object): Principal | undefined;
  /** drop a revoked token from this process's cache */
  evictToken(tokenId: string): void;
  /** drop every cached token of a deleted organization */
  evictOrganization(organizationId: string): void;
}

interface Cached { principal: Principal; until: number }

/** what identity asks of the tokens module (api_tokens is its table): the composition root passes
 * the tokens service's methods (written here, not imported: tokens' service takes this one) */
export interface TokenLookup {
  byHash(hash: string): Promise<{ id: string; organizationId: string; role: Role; name: string } | null>;
  /** records the token's use, in the background */
  markUsed(tokenId: string): void;
}

/** `runCredentials`: the run-credentials module's lookup of a workflow run's credential (its table);
 * `cacheLimit`: entries per cache before it is emptied (bounded-map.ts; tests make it small) */
export function createIdentityService(
  db: Db, config: Config, tokenLookup: TokenLookup, runCredentials: Pick<RunCredentialsService, 'findLive'>, options: { cacheLimit?: number } = {},
): IdentityService {
  const cacheLimit = options.cacheLimit ?? CACHE_LIMIT;
  const tokens = new Map<string, Cached>();
  const jwts = new Map<string, Cached>();
  const lastOnConnection = new WeakMap<object, { authorization: string; entry: Cached; generation: number }>();
  // counts the times the token cache was emptied for its bound: an entry no longer in the cache
  // could no longer be evicted, so connections forget what they remember from before
  let generation = 0;
  function remember(cache: Map<string, Cached>, key: string, entry: Cached): void {
    if (cache.size >= cacheLimit) generation += 1;
    rememberBounded(cache, key, entry, cacheLimit);
  }
  let jwks: ReturnType<typeof createRemoteJWKSet> | undefined;

  async function keySet(): Promise<ReturnType<typeof createRemoteJWKSet>> {
    if (jwks) return jwks;
    let url = config.oidcJwksUrl;
    if (!url) {
      const discovery = `${config.oidcIssuer!.replace(/\/+$/, '')}/.well-known/openid-configuration`;
      const res = await fetch(discovery, { signal: AbortSignal.timeout(5000) });
      if (!res.ok) throw new Error(`OIDC discovery failed with ${res.status}`);
      url = ((await res.json()) as { jwks_uri?: string }).jwks_uri;
      if (!url) throw new Error('OIDC discovery document has no jwks_uri');
    }
    const { createRemoteJWKSet } = await import('jose');
    jwks = createRemoteJWKSet(new URL(url), { cooldownDuration: 1_000, cacheMaxAge: 10 * 60_000 });
    return jwks;
  }

  /** out of the cache, and expired for the connections that remember it */
  function evict(hash: string, entry: Cached): void {
    entry.until = 0;
    tokens.delete(hash);
  }

  async function byRunCredential(secret: string): Promise<Principal> {
    const found = await runCredentials.findLive(secret);
    if (!found) throw unauthorized('This run credential is unknown, expired or revoked (it works only while its run runs)');
    return {
      kind: 'token', id: found.id, organizationId: found.organizationId, role: found.scope.mayAct ? 'DEVOPS' : 'VIEWER',
      name: `workflow run ${found.scope.runId}`, key: `r:${found.scope.runId}`, runScope: found.scope,
    };
  }

  async function byApiToken(secret: string): Promise<Principal> {
    if (secret.startsWith(RUN_CREDENTIAL_PREFIX)) return byRunCredential(secret);
    const hash = sha256Hex(secret);
    const now = Date.now();
    const hit = tokens.get(hash);
    if (hit && hit.until > now) return hit.principal;
    const row = await tokenLookup.byHash(hash);
    if (!row) {
      tokens.delete(hash);
      throw unauthorized();
    }
    const principal: Principal = {
      kind: 'token', id: row.id, organizationId: row.organizationId, role: row.role, name: row.name, key: `t:${row.id}`,
    };
    remember(tokens, hash, { principal, until: now + TOKEN_TTL_MS });
    tokenLookup.markUsed(row.id);
    return principal;
  }

  async function byJwt(jwt: string): Promise<Principal> {
    if (!config.oidcIssuer || !config.oidcAudience) throw unauthorized('Bearer tokens are not enabled on this server');
    const cacheKey = sha256Hex(jwt);
    const now = Date.now();
    const hit = jwts.get(cacheKey);
    if (hit && hit.until > now) return hit.principal;
    let payload: JWTPayload;
    try {
      const { jwtVerify } = await import('jose');
      ({ payload } = await jwtVerify(jwt, await keySet(), { issuer: config.oidcIssuer, audience: config.oidcAudience }));
    } catch {
      throw unauthorized();
    }
    if (typeof payload.sub !== 'string' || payload.sub === '') throw unauthorized();
    const email = typeof payload.email === 'string' ? payload.email : null;
    const name = typeof payload.name === 'string' ? payload.name : null;
    const userId = await repo.upsertUser(db, payload.sub, email, name);
    const principal: Principal = {
      kind: 'user', id: userId, sub: payload.sub, email, name,
      emailVerified: payload.email_verified !== false, key: `u:${userId}`,
    };
    const expiresAt = typeof payload.exp === 'number' ? payload.exp * 1000 : now;
    remember(jwts, cacheKey, { principal, until: Math.min(expiresAt, now + JWT_CACHE_MAX_MS) });
    return principal;
  }

  return {
    cached(authorization, connection) {
      if (authorization === undefined) return undefined;
      const now = Date.now();
      const last = connection && lastOnConnection.get(connection);
      if (last && last.authorization === authorization && last.generation === generation && last.entry.until > now) return last.entry.principal;
      const given = credentials(authorization);
      const cache = given?.scheme === 'token' ? tokens : given?.scheme === 'bearer' ? jwts : undefined;
      const hit = cache?.get(sha256Hex(given!.secret));
      if (!hit || hit.until <= now) return undefined;
      if (connection) lastOnConnection.set(connection, { authorization, entry: hit, generation });
      return hit.principal;
    },
    async authenticate(authorization) {
      const given = credentials(authorization);
      if (given?.scheme === 'token') return byApiToken(given.secret);
      if (given?.scheme === 'bearer') return byJwt(given.secret);
      throw unauthorized();
    },
    evictToken(tokenId) {
      for (const [hash, entry] of tokens) if (entry.principal.id === tokenId) evict(hash, entry);
    },
    evictOrganization(organizationId) {
      for (const [hash, entry] of tokens) {
        if (entry.principal.kind === 'token' && entry.principal.organizationId === organizationId) evict(hash, entry);
      }
    },
  };
}
