// GET /{application,container}/{id}/link: the public addresses of a service's publicly accessible
// ports, computed by the engine's one pure function (publicLinks) from the ingress settings in
// configuration and the ports of the stored spec. The same on every engine: the simulated engine
// deploys nothing, so its links answer only once a real engine (docker) serves the service.
import type { Config } from '../../config/config.ts';
import type { Db } from '../../db/db.ts';
import { publicLinks } from '../../engine/links.ts';
import type { Principal } from '../access/principal.ts';
import { describeServiceRow } from './service-spec.ts';
import type { ServicesService } from './services.service.ts';

export interface ServiceLink {
  service_id: string; service_type: string; url: string; internal_port: number; external_port: number; is_qovery_domain: boolean; is_default: boolean;
}

export async function serviceLinks(deps: { db: Db; config: Config; services: ServicesService }, p: Principal, id: string, type: 'APPLICATION' | 'CONTAINER', label: string): Promise<{ results: ServiceLink[] }> {
  const { row } = await deps.services.authorizedRow(p, id, type, label, 'read');
  const loaded = await describeServiceRow(deps.db, row);
  const ports = loaded.type === 'APPLICATION' || loaded.type === 'CONTAINER' ? loaded.spec.ports : [];
  const links = publicLinks({ domain: deps.config.ingressDomain, port: deps.config.ingressPort }, { slug: row.slug, environmentId: row.environment_id, ports });
  return {
    results: links.map((l) => ({
      service_id: row.id, service_type: row.type, url: l.url, internal_port: l.internal_port, external_port: l.external_port,
      is_qovery_domain: l.is_qovery_domain, is_default: l.is_default,
    })),
  };
}
