// Public addresses of a service's ports, pure: the host name the ingress routes for each
// publicly accessible port, and the `LinkResponse` list Qovery's clients read at
// GET /{application,container}/{id}/link. One source for the ingress routes and the API.

export interface IngressSettings {
  /** INGRESS_DOMAIN: hosts are <name>.<domain> */
  domain: string;
  /** INGRESS_PORT: left out of URLs when it is 80 */
  port: number;
  /** the HTTPS listener when the hosts have a live certificate (INGRESS_DOMAIN_HTTPS): URLs are https, the port left out when it is 443 */
  httpsPort?: number | null;
}

export interface LinkService {
  slug: string;
  environmentId: string;
  ports: ReadonlyArray<{ internal_port: number; external_port?: number | null; publicly_accessible: boolean; is_default?: boolean | null; name?: string | null }>;
}

export interface PublicLink {
  /** the host name the ingress routes (no port) */
  host: string;
  url: string;
  internal_port: number;
  external_port: number;
  is_qovery_domain: boolean;
  is_default: boolean;
}

/** DNS label: lower-case letters, digits and dashes, at most 63 characters */
function label(text: string): string {
  const cleaned = text.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '');
  return (cleaned || 'service').slice(0, 50).replace(/-+$/, '');
}

/** the host of a service's port: <slug>-<env8> for the default port, p<port>-<slug>-<env8> for others */
export function serviceHost(settings: IngressSettings, service: Pick<LinkService, 'slug' | 'environmentId'>, port?: number): string {
  const env = service.environmentId.replace(/-/g, '').slice(0, 8);
  const base = `${label(service.slug)}-${env}`;
  return `${port === undefined ? base : `p${port}-${base}`}.${settings.domain}`;
}

/** the links of every publicly accessible port; the default one (is_default, or the first) also gets the short host */
export function publicLinks(settings: IngressSettings, service: LinkService): PublicLink[] {
  const open = service.ports.filter((p) => p.publicly_accessible);
  if (open.length === 0) return [];
  const preferred = open.find((p) => p.is_default) ?? open[0]!;
  const https = settings.httpsPort ?? null;
  const scheme = https === null ? 'http' : 'https';
  const port = https ?? settings.port;
  const suffix = port === (https === null ? 80 : 443) ? '' : `:${port}`;
  const links: PublicLink[] = [];
  for (const p of open) {
    const isDefault = p === preferred;
    const hosts = isDefault ? [serviceHost(settings, service), serviceHost(settings, service, p.internal_port)] : [serviceHost(settings, service, p.internal_port)];
    for (const host of hosts) {
      links.push({
        host, url: `${scheme}://${host}${suffix}`, internal_port: p.internal_port, external_port: port,
        is_qovery_domain: true, is_default: isDefault && host === hosts[0],
      });
    }
  }
  return links;
}
