// GET /{application,container}/{id}/link: the public addresses of a service's publicly accessible
// ports, computed by the engine's one pure function (publicLinks) from the ingress settings in
// configuration and the ports of the stored spec (https once the hosts' wildcard certificate is live, decision 0349). A docker engine without its ingress proxy (haproxy
// missing) hands out none and says why; the simulated engine shows what a real one would serve and
// says that they do not answer (public_urls_unavailable_reason).
import type { Config } from '../../config/config.ts';
import type { Db } from '../../db/db.ts';
import { publicLinks, type EngineDriver } from '../../engine/index.ts';
import type { Principal } from '../access/principal.ts';
import { describeServiceRow } from './service-spec.ts';
import type { ServicesService } from './services.service.ts';
import type { ServiceRow } from './services.repo.ts';

interface ServiceLink {
  service_id: string; service_type: string; url: string; internal_port: number; external_port: number; is_qovery_domain: boolean; is_default: boolean;
}

export interface ServiceLinks { results: ServiceLink[]; public_urls_unavailable_reason: string | null }

type LinkDeps = {
  db: Db; config: Config; engine: Pick<EngineDriver, 'real' | 'publicUrlsUnavailable'>;
  /** the HTTPS port once the services' own hosts have a live certificate (INGRESS_DOMAIN_HTTPS), else null */
  defaultHostsHttps: () => Promise<number | null>;
};

/** a service row's public links and why they would not answer (no principal: the caller checked) */
async function rowLinks(deps: LinkDeps, row: ServiceRow): Promise<ServiceLinks> {
  const loaded = await describeServiceRow(deps.db, row);
  const ports = loaded.type === 'APPLICATION' || loaded.type === 'CONTAINER' ? loaded.spec.ports : [];
  // only a service with a publicly accessible port has addresses that could not answer
  const reason = ports.some((p) => p.publicly_accessible) ? deps.engine.publicUrlsUnavailable : null;
  // a real engine without an ingress hands out no address that cannot answer; the simulated one
  // shows what a real engine would serve, and says so
  const settings = { domain: deps.config.ingressDomain, port: deps.config.ingressPort, httpsPort: await deps.defaultHostsHttps() };
  const links = reason && deps.engine.real ? [] : publicLinks(settings, { slug: row.slug, environmentId: row.environment_id, ports });
  return {
    results: links.map((l) => ({
      service_id: row.id, service_type: row.type, url: l.url, internal_port: l.internal_port, external_port: l.external_port,
      is_qovery_domain: l.is_qovery_domain, is_default: l.is_default,
    })),
    public_urls_unavailable_reason: reason,
  };
}

export async function serviceLinks(deps: LinkDeps & { services: ServicesService },
  p: Principal, id: string, type: 'APPLICATION' | 'CONTAINER', label: string): Promise<ServiceLinks> {
  const { row } = await deps.services.authorizedRow(p, id, type, label, 'read');
  return rowLinks(deps, row);
}

/** for background work (a git provider's status): the service's default public URL, as GET …/link lists it first, or null */
export async function defaultServiceUrl(deps: LinkDeps & { services: Pick<ServicesService, 'findRow'> }, id: string): Promise<string | null> {
  const row = await deps.services.findRow(id);
  if (!row || (row.type !== 'APPLICATION' && row.type !== 'CONTAINER')) return null;
  return (await rowLinks(deps, row)).results.find((l) => l.is_default)?.url ?? null;
}
