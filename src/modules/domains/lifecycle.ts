// A custom domain's lifecycle, moved on in the background (task domains.advance, and every minute
// domains.visit for what is due): waiting for DNS → the ingress routes the domain as an alias of
// the service's host → a certificate ordered from the ACME CA → installed on the ingress with no
// reload → ACTIVE, renewed once a third of its lifetime is left (CERTIFICATE_RENEWAL_FRACTION). A
// refusal is FAILED with the CA's words and a back-off. Each change of status is an organization
// event (CUSTOM_DOMAIN_STATUS_CHANGED) and a line in the service's log.
import type { Db, Queryable } from '../../db/db.ts';
import type { Config } from '../../config/config.ts';
import type { Sealer } from '../../lib/crypto.ts';
import type { TaskQueue } from '../../queue/queue.ts';
import { serviceHost, type DomainIngress } from '../../engine/index.ts';
import { emitEvent } from '../webhooks/emit.ts';
import { serviceIdKey } from '../deployments/deployments.rules.ts';
import type { ServicesService } from '../services/services.service.ts';
import { AcmeRefusal, createCertificateIssuer } from './acme.ts';
import type { DomainDns } from './dns.ts';
import { judge, passes, renewalDue, retryAt, type Verdict } from './domains.rules.ts';
import * as repo from './domains.repo.ts';
import { createIngressDomainCertificate } from './ingress-domain.ts';

/** a service's row as the services module hands it to other modules (its repo is its own) */
export type ServiceRow = NonNullable<Awaited<ReturnType<ServicesService['findRow']>>>;

export interface LifecycleDeps {
  db: Db; sealer: Sealer; queue: TaskQueue; config: Config; dns: DomainDns;
  /** the engine's ingress; null or absent: no proxy runs (simulated engine, no haproxy) */
  ingress: () => DomainIngress | null | undefined;
  findService(id: string): Promise<ServiceRow | null>;
  /** what an event's webhook filters read: the project's name and the environment's mode */
  eventScope(serviceId: string): Promise<{ projectName: string | null; environmentMode: string } | null>;
  serviceLog(tx: Queryable, serviceId: string, message: string): Promise<void>;
  logger: { info(o: object, m: string): void; warn(o: object, m: string): void };
}

/** berth's own host name of a service: the validation domain its custom domains point at */
export const validationDomain = (config: Config, service: Pick<ServiceRow, 'slug' | 'environment_id'>): string =>
  serviceHost({ domain: config.ingressDomain, port: config.ingressPort }, { slug: service.slug, environmentId: service.environment_id });

export function createDomainLifecycle(deps: LifecycleDeps) {
  const { db, config } = deps;
  const issuer = createCertificateIssuer({ sealer: deps.sealer, https: config.https });
  const ingressDomain = createIngressDomainCertificate({ ...deps, issuer });

  /** a domain's DNS as the check sees it */
  async function check(row: Pick<repo.DomainRow, 'domain' | 'use_cdn'>, service: ServiceRow): Promise<Verdict> {
    const target = validationDomain(config, service);
    const [answer, expected] = await Promise.all([deps.dns.lookup(row.domain), deps.dns.expected(target)]);
    return judge(row.domain, answer, { validationDomain: target, expected, useCdn: row.use_cdn });
  }

  /** the new state, with its event and log line when the status changes (one transaction) */
  async function move(row: repo.DomainRow, service: ServiceRow, next: { status: repo.DomainStatus; message: string | null; retryAt?: Date | null; attempts?: number }): Promise<void> {
    // the webhook filters' scope is read only when the status changes (a waiting domain is visited every minute)
    const scope = next.status !== row.status ? await deps.eventScope(service.id) : null;
    const projectName = scope?.projectName;
    const mode = scope?.environmentMode;
    await db.transaction(async (tx) => {
      await repo.setDomainState(tx, row.id, { ...next, checked: true });
      if (next.status === row.status && next.message === row.message) return;
      const cert = await repo.findCertificate(tx, row.domain);
      if (next.status !== row.status) {
        await deps.serviceLog(tx, service.id, `Custom domain ${row.domain}: ${next.status}${next.message ? ` (${next.message})` : ''}`);
        await emitEvent(tx, { queue: deps.queue }, {
          organizationId: row.organization_id, kind: 'CUSTOM_DOMAIN_STATUS_CHANGED', ...(projectName ? { projectName } : {}), ...(mode ? { environmentMode: mode } : {}),
          payload: {
            custom_domain_id: row.id, domain: row.domain, status: next.status, previous_status: row.status, message: next.message,
            certificate_expires_at: cert?.not_after.toISOString() ?? null, retry_at: next.retryAt?.toISOString() ?? null,
            service_id: service.id, [serviceIdKey(service.type)]: service.id, service_type: service.type, service_name: service.name,
            environment_id: service.environment_id, project_id: service.project_id, organization_id: row.organization_id,
          },
        });
      }
    });
  }

  /** the certificate of `host` on the ingress, ordered when missing or due for renewal; its expiry */
  async function certify(row: repo.DomainRow, ingress: DomainIngress): Promise<Date> {
    const held = await repo.findCertificate(db, row.domain);
    if (held && !renewalDue(held.not_before, held.not_after, new Date(), config.https.renewalFraction)) {
      return held.not_after;
    }
    const issued = await issuer.issue(db, row.domain);
    await ingress.setCertificate(row.domain, issued.chainPem, issued.keyPem);
    deps.logger.info({ domain: row.domain, notAfter: issued.notAfter, renewal: held !== null }, `custom domains: certificate ${held ? 'renewed' : 'issued'} for ${row.domain}`);
    return issued.notAfter;
  }

  /** moves one domain's lifecycle on as far as it goes now */
  async function advance(domainId: string): Promise<void> {
    const row = await repo.findDomainById(db, domainId);
    if (!row) return;
    const service = await deps.findService(row.service_id);
    if (!service) return;
    const ingress = deps.ingress();
    if (row.status === 'VALIDATION_PENDING') {
      const verdict = await check(row, service);
      if (!passes(verdict)) return move(row, service, { status: 'VALIDATION_PENDING', message: verdict.details });
    }
    if (!ingress) {
      return move(row, service, { status: 'VALIDATION_PENDING', message: 'DNS points at berth, but no ingress proxy runs here (simulated engine, or no haproxy): nothing serves the domain yet' });
    }
    const target = validationDomain(config, service);
    if (!row.generate_certificate) {
      await ingress.setDomain(row.domain, target, false);
      return move(row, service, { status: 'ACTIVE', message: 'served over HTTP; TLS is terminated before berth (generate_certificate is false)', attempts: 0 });
    }
    if (!ingress.httpsAddress) {
      await ingress.setDomain(row.domain, target, false);
      return move(row, service, { status: 'FAILED', message: 'the ingress has no HTTPS listener (INGRESS_HTTPS_PORT is 0): no certificate can be served', retryAt: retryAt(new Date(), row.attempts + 1), attempts: row.attempts + 1 });
    }
    // served over HTTP first: the CA's HTTP-01 challenge comes through the ingress
    await ingress.setDomain(row.domain, target, row.status === 'ACTIVE');
    if (row.status === 'VALIDATION_PENDING') {
      await move(row, service, { status: 'CERTIFICATE_PENDING', message: `DNS points at berth; ordering a certificate from ${new URL(config.https.acmeDirectoryUrl).host}` });
      row.status = 'CERTIFICATE_PENDING';
    }
    try {
      const notAfter = await certify(row, ingress);
      await ingress.setDomain(row.domain, target, true);
      await move(row, service, { status: 'ACTIVE', message: `certificate valid until ${notAfter.toISOString()}`, attempts: 0 });
    } catch (err) {
      if (!(err instanceof AcmeRefusal)) throw err;
      const attempts = row.attempts + 1;
      const at = retryAt(new Date(), attempts, err.retryAfter);
      deps.logger.warn({ domain: row.domain, attempts, retryAt: at }, `custom domains: the CA refused ${row.domain}: ${err.message}`);
      // an ACTIVE domain whose renewal failed keeps serving its current certificate
      await move(row, service, { status: row.status === 'ACTIVE' ? 'ACTIVE' : 'FAILED', message: `the CA refused: ${err.message}; berth tries again at ${at.toISOString()}`, retryAt: at, attempts });
    }
  }

  /** every minute: domains waiting for DNS or a certificate, failed ones due again, and active ones due for renewal */
  async function visit(): Promise<number> {
    const due = await repo.domainsToVisit(db, 200);
    let queued = 0;
    for (const row of due) {
      if (row.status === 'ACTIVE') {
        // the certificate's dates come with the row (one statement for the whole visit)
        const held = row.certificate_not_before && row.certificate_not_after;
        const renew = row.generate_certificate && (!held || renewalDue(row.certificate_not_before!, row.certificate_not_after!, new Date(), config.https.renewalFraction));
        if (!renew || (row.retry_at && row.retry_at > new Date())) continue;
      }
      await deps.queue.enqueue(db, 'domains.advance', { domainId: row.id }, { singletonKey: row.id });
      queued++;
    }
    if (await ingressDomain.due()) {
      await deps.queue.enqueue(db, 'domains.certify-ingress-domain', {}, { singletonKey: 'ingress-domain' });
      queued++;
    }
    return queued;
  }

  /** at start: the ingress serves every domain and certificate the store holds (a rebuilt host, another process's work) */
  async function syncIngress(): Promise<void> {
    const ingress = deps.ingress();
    if (!ingress) return;
    await ingressDomain.install();
    for (const row of await repo.routableDomains(db)) {
      const service = await deps.findService(row.service_id);
      if (!service) continue;
      const cert = row.generate_certificate ? await repo.findCertificate(db, row.domain) : null;
      if (cert) await ingress.setCertificate(row.domain, cert.chain_pem, deps.sealer.open(cert.key_sealed));
      await ingress.setDomain(row.domain, validationDomain(config, service), cert !== null && row.status === 'ACTIVE');
    }
  }

  /** a domain removed (or renamed): its alias and certificate leave the ingress and the store */
  async function release(domain: string): Promise<void> {
    await repo.deleteCertificate(db, domain);
    const ingress = deps.ingress();
    if (!ingress) return;
    try {
      await ingress.removeDomain(domain);
      await ingress.removeCertificate(domain);
    } catch (err) {
      deps.logger.warn({ err, domain }, `custom domains: ${domain} could not be removed from the ingress now; the proxy's next start leaves it out`);
    }
  }

  return { check, advance, visit, syncIngress, release, certifyIngressDomain: ingressDomain.certify, defaultHostsHttps: ingressDomain.httpsPort };
}

export type DomainLifecycle = ReturnType<typeof createDomainLifecycle>;
