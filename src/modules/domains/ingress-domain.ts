// HTTPS for the services' own hosts (INGRESS_DOMAIN_HTTPS, decision 0349): one wildcard
// certificate for *.INGRESS_DOMAIN, ordered by DNS-01 (the only challenge a CA takes for a
// wildcard), kept sealed in the store like custom domains' certificates, renewed on the same
// threshold, installed on the ingress with HTTP redirecting to HTTPS for every host under it. A
// refusal backs off (certificate_orders) and is logged with the CA's words; until a certificate is
// held, links stay http.
import type { Db } from '../../db/db.ts';
import type { Config } from '../../config/config.ts';
import type { Sealer } from '../../lib/crypto.ts';
import type { DomainIngress } from '../../engine/index.ts';
import { AcmeRefusal, type CertificateIssuer } from './acme.ts';
import { renewalDue, retryAt } from './domains.rules.ts';
import * as repo from './domains.repo.ts';

export interface IngressDomainDeps {
  db: Db; sealer: Sealer; config: Config;
  /** the lifecycle's certificate issuer (its CA and the CA bundle it trusts) */
  issuer: CertificateIssuer;
  ingress: () => DomainIngress | null | undefined;
  logger: { info(o: object, m: string): void; warn(o: object, m: string): void };
}

export function createIngressDomainCertificate(deps: IngressDomainDeps) {
  const { db, config } = deps;
  const host = `*.${config.ingressDomain}`;
  const enabled = config.https.ingressDomainHttps;

  /** an order is due: no certificate or one due for renewal, and no back-off running */
  async function due(now = new Date()): Promise<boolean> {
    if (!enabled) return false;
    const [held, order] = await Promise.all([repo.findCertificate(db, host), repo.findOrder(db, host)]);
    if (order?.retry_at && order.retry_at > now) return false;
    return !held || renewalDue(held.not_before, held.not_after, now, config.https.renewalFraction);
  }

  /** orders (or renews) the certificate and installs it; a refusal is remembered with its back-off */
  async function certify(): Promise<void> {
    const ingress = deps.ingress();
    if (!ingress?.httpsAddress || !(await due())) return;
    const held = await repo.findCertificate(db, host);
    try {
      const issued = await deps.issuer.issue(db, host);
      await repo.setOrder(db, host, null);
      await ingress.setCertificate(host, issued.chainPem, issued.keyPem);
      await ingress.setHttps(host, true);
      deps.logger.info({ host, notAfter: issued.notAfter }, `ingress domain: certificate ${held ? 'renewed' : 'issued'} for ${host}: the services' own URLs are https`);
    } catch (err) {
      if (!(err instanceof AcmeRefusal)) throw err;
      const attempts = ((await repo.findOrder(db, host))?.attempts ?? 0) + 1;
      const at = retryAt(new Date(), attempts, err.retryAfter);
      await repo.setOrder(db, host, { attempts, retryAt: at, message: err.message });
      deps.logger.warn({ host, attempts, retryAt: at }, `ingress domain: the CA refused ${host}: ${err.message}; berth tries again at ${at.toISOString()}${held ? ' (the current certificate serves until then)' : ''}`);
    }
  }

  /** at start: the ingress serves the held certificate */
  async function install(): Promise<void> {
    const ingress = deps.ingress();
    if (!enabled || !ingress?.httpsAddress) return;
    const held = await repo.findCertificate(db, host);
    if (!held) return;
    await ingress.setCertificate(host, held.chain_pem, deps.sealer.open(held.key_sealed));
    await ingress.setHttps(host, true);
  }

  /** the HTTPS port links use, once the certificate is held; null: links stay http */
  async function httpsPort(): Promise<number | null> {
    if (!enabled || config.https.port === null) return null;
    return (await repo.findCertificate(db, host)) ? config.https.port : null;
  }

  return { due, certify, install, httpsPort };
}
