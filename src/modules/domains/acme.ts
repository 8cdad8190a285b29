// Certificates from an ACME CA through acme-client (decision 0349): the account of the configured
// directory (its key sealed in acme_accounts, made once), an order for one host answered by HTTP-01
// (the key authorization stored in acme_challenges, which any berth process serves to the CA
// through the ingress) or, for a wildcard, by DNS-01 (a TXT record written by the RFC 2136
// provider, dns01-rfc2136.ts), and the issued chain read back for its dates. A refusal keeps the
// CA's own words and, when it says, until when it refuses.
import { readFileSync } from 'node:fs';
import { Agent } from 'node:https';
import * as acme from 'acme-client';
import type { Queryable } from '../../db/db.ts';
import type { Sealer } from '../../lib/crypto.ts';
import type { HttpsConfig } from '../../config/https.ts';
import * as repo from './domains.repo.ts';
import { createRfc2136Provider, Rfc2136Error, type Dns01Provider } from './dns01-rfc2136.ts';

interface IssuedCertificate { chainPem: string; keyPem: string; notBefore: Date; notAfter: Date; issuer: string }

export class AcmeRefusal extends Error {
  override name = 'AcmeRefusal';
  readonly retryAfter: Date | null;
  constructor(message: string, retryAfter: Date | null) { super(message); this.retryAfter = retryAfter; }
}

type CaRequest = (url: string, method: string, opts?: Record<string, unknown>) => Promise<unknown>;

/** the client's requests to the CA trust `agent`'s CA bundle (ACME_CA_BUNDLE: a private or test CA).
 * acme-client sends each of them through the client's own HttpClient into one axios shared by the
 * whole process, whose options it passes on: the agent goes on this client's requests, not on that
 * shared axios's defaults, so nothing else in the process (another berth in it included) trusts it */
function trusting(client: acme.Client, agent: Agent | null): acme.Client {
  if (!agent) return client;
  const http = (client as unknown as { http?: { request: CaRequest } }).http;
  if (typeof http?.request !== 'function') throw new Error('acme-client has no per-client HTTP client to give ACME_CA_BUNDLE to (its version changed?)');
  const request = http.request.bind(http);
  http.request = (url, method, opts = {}) => request(url, method, { ...opts, httpsAgent: agent });
  return client;
}

/** "retry after 2026-11-28 07:00:00 UTC" (Let's Encrypt's rate-limit detail) or an ISO time */
function retryAfterOf(message: string): Date | null {
  const m = /retry after ((\d{4}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d)(?:\.\d+)?\s*(?:UTC|Z)?)/i.exec(message);
  if (!m) return null;
  const at = new Date(`${m[2]}T${m[3]}Z`);
  return Number.isNaN(at.getTime()) ? null : at;
}

async function accountClient(db: Queryable, sealer: Sealer, cfg: HttpsConfig, agent: Agent | null): Promise<acme.Client> {
  let account = await repo.findAccount(db, cfg.acmeDirectoryUrl);
  if (!account) {
    const key = await acme.crypto.createPrivateKey();
    await repo.saveAccount(db, cfg.acmeDirectoryUrl, sealer.seal(key.toString()), null);
    // two processes making one at once: the first stored wins
    account = (await repo.findAccount(db, cfg.acmeDirectoryUrl))!;
  }
  return trusting(new acme.Client({
    directoryUrl: cfg.acmeDirectoryUrl, accountKey: sealer.open(account.key_sealed),
    ...(account.account_url ? { accountUrl: account.account_url } : {}),
    // the first look at a validation comes soon (pebble and Let's Encrypt often finish within half a second), then backs off to 10 s
    backoffAttempts: 12, backoffMin: 250, backoffMax: 10_000,
  }), agent);
}

/** the challenge an order for `host` is answered with: DNS-01 for a wildcard (the only one a CA accepts for it) or when asked, else HTTP-01 */
function challengeFor(host: string, asked: 'http-01' | 'dns-01' | undefined): 'http-01' | 'dns-01' {
  return host.startsWith('*.') ? 'dns-01' : asked ?? 'http-01';
}

/** orders a certificate for `host` (HTTP-01, or DNS-01 through the configured provider for a wildcard or when `o.challenge` asks); throws AcmeRefusal with the CA's message when it refuses */
async function orderCertificate(
  db: Queryable, sealer: Sealer, cfg: HttpsConfig, agent: Agent | null, host: string,
  o: { challenge?: 'http-01' | 'dns-01'; dns01?: Dns01Provider } = {},
): Promise<IssuedCertificate> {
  const type = challengeFor(host, o.challenge);
  let dns01: Dns01Provider | null = null;
  if (type === 'dns-01') {
    dns01 = o.dns01 ?? (cfg.dns01 ? createRfc2136Provider(cfg.dns01) : null);
    if (!dns01) throw new AcmeRefusal(`${host} needs a DNS-01 challenge and no DNS-01 provider is configured (ACME_DNS01_RFC2136_SERVER, _KEY_NAME, _KEY_SECRET)`, null);
  }
  const client = await accountClient(db, sealer, cfg, agent);
  const tokens: string[] = [];
  const records: Array<{ domain: string; value: string }> = [];
  try {
    const [key, csr] = await acme.crypto.createCsr({ commonName: host, altNames: [host] });
    const chainPem = await client.auto({
      csr, termsOfServiceAgreed: true, challengePriority: [type],
      ...(cfg.acmeEmail ? { email: cfg.acmeEmail } : {}),
      // the CA checks for itself; berth's own look-up would need the public DNS view (DNS-01: the provider waits until the zone's server serves the record)
      skipChallengeVerification: true,
      challengeCreateFn: async (authz, challenge, keyAuthorization) => {
        if (challenge.type !== type) throw new Error(`challenge ${challenge.type} is not answered by berth here (${type} is)`);
        if (dns01) {
          records.push({ domain: authz.identifier.value, value: keyAuthorization });
          try { await dns01.present(authz.identifier.value, keyAuthorization); } catch (err) {
            throw err instanceof Rfc2136Error ? new Error(`DNS-01 record not written: ${err.message}`) : err;
          }
          return;
        }
        tokens.push(challenge.token);
        await repo.putChallenge(db, challenge.token, host, keyAuthorization);
      },
      challengeRemoveFn: async (authz, challenge, keyAuthorization) => {
        if (dns01) {
          await dns01.cleanup(authz.identifier.value, keyAuthorization);
          const at = records.findIndex((r) => r.value === keyAuthorization);
          if (at >= 0) records.splice(at, 1);
          return;
        }
        await repo.dropChallenge(db, challenge.token);
      },
    });
    await repo.setAccountUrl(db, cfg.acmeDirectoryUrl, client.getAccountUrl());
    const info = acme.crypto.readCertificateInfo(chainPem);
    return { chainPem, keyPem: key.toString(), notBefore: info.notBefore, notAfter: info.notAfter, issuer: info.issuer.commonName ?? 'unknown issuer' };
  } catch (err) {
    for (const token of tokens) await repo.dropChallenge(db, token).catch(() => undefined);
    for (const r of records) await dns01?.cleanup(r.domain, r.value).catch(() => undefined);
    const message = err instanceof Error ? err.message : String(err);
    throw new AcmeRefusal(message, retryAfterOf(message));
  }
}

export interface CertificateIssuer {
  /** orders a certificate for `host` and keeps it in the store (its key sealed); what both the custom domains and the ingress domain install */
  issue(db: Queryable, host: string): Promise<IssuedCertificate>;
}

/** one per domain lifecycle: the CA of `https` (trusting ACME_CA_BUNDLE, read once, for this issuer's requests only) */
export function createCertificateIssuer(deps: { sealer: Sealer; https: HttpsConfig }): CertificateIssuer {
  const { sealer, https } = deps;
  let agent: Agent | undefined;
  const caAgent = () => https.acmeCaBundle === null ? null : (agent ??= new Agent({ ca: readFileSync(https.acmeCaBundle) }));
  return {
    async issue(db, host) {
      const issued = await orderCertificate(db, sealer, https, caAgent(), host);
      await repo.saveCertificate(db, {
        host, chain_pem: issued.chainPem, key_sealed: sealer.seal(issued.keyPem), not_before: issued.notBefore, not_after: issued.notAfter, issuer: issued.issuer,
      });
      return issued;
    },
  };
}
