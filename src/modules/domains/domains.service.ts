// Custom domains of applications and containers (issue 38, decision 0349): Qovery's custom-domain
// API (list, create, get, edit, delete, status, check) over the custom_domains table, with one
// rule per invariant: a domain is held by one service in the whole installation (409 naming the
// holder only to members of its organization), stored as punycode, a wildcard only with a DNS-01
// provider. The lifecycle in the background is lifecycle.ts; the ACME CA's answers to its HTTP-01
// challenges are served from here.
import type { Db } from '../../db/db.ts';
import type { Config } from '../../config/config.ts';
import { badRequest, conflict, notFound } from '../../lib/errors.ts';
import { isoRequired, iso } from '../../lib/text.ts';
import type { Principal } from '../access/principal.ts';
import type { OrganizationsService } from '../organizations/organizations.service.ts';
import type { ServicesService } from '../services/services.service.ts';
import type { TaskQueue } from '../../queue/queue.ts';
import { dnsRecord, normalizeDomain } from './domains.rules.ts';
import * as repo from './domains.repo.ts';
import type { CheckedCustomDomain, CustomDomain, CustomDomainRequest } from './domains.schemas.ts';
import { validationDomain, type DomainLifecycle, type ServiceRow } from './lifecycle.ts';

/** the service types with custom domains, and the label their 404s name */
export type DomainServiceType = 'APPLICATION' | 'CONTAINER';
const LABELS: Record<DomainServiceType, string> = { APPLICATION: 'Application', CONTAINER: 'Container' };

export interface DomainsService {
  list(p: Principal, type: DomainServiceType, serviceId: string): Promise<{ results: CustomDomain[] }>;
  create(p: Principal, type: DomainServiceType, serviceId: string, body: CustomDomainRequest): Promise<CustomDomain>;
  get(p: Principal, type: DomainServiceType, serviceId: string, domainId: string): Promise<CustomDomain>;
  edit(p: Principal, type: DomainServiceType, serviceId: string, domainId: string, body: CustomDomainRequest): Promise<CustomDomain>;
  remove(p: Principal, type: DomainServiceType, serviceId: string, domainId: string): Promise<void>;
  /** every domain of the service checked against DNS now (its lifecycle moves on in the background) */
  check(p: Principal, type: DomainServiceType, serviceId: string): Promise<{ results: CheckedCustomDomain[] }>;
  /** the key authorization of a pending HTTP-01 challenge, for the CA (no principal: the CA asks) */
  challengeAnswer(token: string): Promise<string | null>;
  /** the HTTPS port the services' own URLs use once their wildcard certificate is held (INGRESS_DOMAIN_HTTPS); null: http */
  defaultHostsHttps(): Promise<number | null>;
  readonly lifecycle: DomainLifecycle;
}

export interface DomainsDeps {
  db: Db; config: Config; queue: TaskQueue; services: ServicesService; organizations: OrganizationsService; lifecycle: DomainLifecycle;
}

export function createDomainsService(deps: DomainsDeps): DomainsService {
  const { db, config, lifecycle } = deps;
  const dns01 = config.https.dns01 !== null;

  function present(row: repo.DomainRow, service: ServiceRow): CustomDomain {
    const target = validationDomain(config, service);
    return {
      id: row.id, created_at: isoRequired(row.created_at), updated_at: isoRequired(row.updated_at ?? row.created_at),
      domain: row.domain, generate_certificate: row.generate_certificate, use_cdn: row.use_cdn, validation_domain: target,
      status: row.status, message: row.message, dns_record: dnsRecord(row.domain, target, config.https.publicAddresses),
      certificate_expires_at: row.generate_certificate ? iso(row.certificate_not_after) : null,
      retry_at: iso(row.retry_at), checked_at: iso(row.checked_at),
    };
  }

  async function serviceOf(p: Principal, type: DomainServiceType, serviceId: string, action: 'read' | 'write') {
    return (await deps.services.authorizedRow(p, serviceId, type, LABELS[type], action)).row;
  }

  async function domainOf(serviceId: string, domainId: string): Promise<repo.DomainRow> {
    const row = await repo.findDomain(db, serviceId, domainId);
    if (!row) throw notFound('Custom domain');
    return row;
  }

  /** the stored form of a requested domain, refused when another service holds it */
  async function accepted(p: Principal, body: CustomDomainRequest, self: string | null): Promise<string> {
    const verdict = normalizeDomain(body.domain, { ingressDomain: config.ingressDomain, dns01 });
    if (!verdict.ok) throw badRequest(verdict.message);
    const holder = await repo.domainHolder(db, verdict.domain);
    if (holder && holder.id !== self) {
      // the holder is named only to those who may see it
      const sees = await deps.organizations.authorize(p, holder.organization_id, 'read').then(() => true, () => false);
      const where = sees ? (await deps.services.findRow(holder.service_id))?.name : null;
      throw conflict(`${verdict.domain} is already used by ${where ? `the service "${where}"` : 'another service'}; a domain belongs to one service`);
    }
    return verdict.domain;
  }

  async function afterChange(domainId: string): Promise<void> {
    await deps.queue.enqueue(db, 'domains.advance', { domainId }, { singletonKey: domainId });
  }

  return {
    lifecycle,
    async list(p, type, serviceId) {
      const service = await serviceOf(p, type, serviceId, 'read');
      return { results: (await repo.listServiceDomains(db, serviceId)).map((r) => present(r, service)) };
    },
    async create(p, type, serviceId, body) {
      const service = await serviceOf(p, type, serviceId, 'write');
      const domain = await accepted(p, body, null);
      const id = await repo.insertDomain(db, {
        organizationId: service.organization_id, serviceId, domain, generateCertificate: body.generate_certificate ?? true, useCdn: body.use_cdn ?? false,
      });
      await afterChange(id);
      return present((await repo.findDomain(db, serviceId, id))!, service);
    },
    async get(p, type, serviceId, domainId) {
      const service = await serviceOf(p, type, serviceId, 'read');
      return present(await domainOf(serviceId, domainId), service);
    },
    async edit(p, type, serviceId, domainId, body) {
      const service = await serviceOf(p, type, serviceId, 'write');
      const before = await domainOf(serviceId, domainId);
      const domain = await accepted(p, body, domainId);
      const generate = body.generate_certificate ?? true;
      const useCdn = body.use_cdn ?? false;
      if (domain !== before.domain || generate !== before.generate_certificate || useCdn !== before.use_cdn) {
        await repo.updateDomain(db, domainId, { domain, generateCertificate: generate, useCdn });
        if (domain !== before.domain) await lifecycle.release(before.domain);
        await afterChange(domainId);
      }
      return present(await domainOf(serviceId, domainId), service);
    },
    async remove(p, type, serviceId, domainId) {
      await serviceOf(p, type, serviceId, 'write');
      const row = await domainOf(serviceId, domainId);
      await repo.deleteDomain(db, domainId);
      await lifecycle.release(row.domain);
    },
    async check(p, type, serviceId) {
      const service = await serviceOf(p, type, serviceId, 'read');
      const rows = await repo.listServiceDomains(db, serviceId);
      const results = await Promise.all(rows.map(async (r) => {
        const verdict = await lifecycle.check(r, service);
        if (r.status === 'VALIDATION_PENDING') await afterChange(r.id);
        return { domain_name: r.domain, status: verdict.status, error_details: verdict.details };
      }));
      return { results };
    },
    challengeAnswer: (token) => repo.challengeAnswer(db, token),
    defaultHostsHttps: () => lifecycle.defaultHostsHttps(),
  };
}
