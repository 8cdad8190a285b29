// The custom-domain tools of berth's MCP server (issue 38): list an application's or container's
// domains with their lifecycle, add one (answering the DNS record the person must create), remove
// one by its name or id, and check now where each points. Each is the call the REST routes make
// (ctx.services.domains, which authorizes), the changes recorded in the audit log.
import { Type } from 'typebox';
import { badRequest, notFound } from '../../lib/errors.ts';
import type { DomainServiceType } from '../../modules/domains/domains.service.ts';
import { CustomDomainRequest } from '../../modules/domains/domains.schemas.ts';
import { storedForm } from '../../modules/domains/domains.rules.ts';
import { findService, type ServicePlace } from '../../modules/scope/names.ts';
import { ServicePlaceInput, tool, type ToolCall } from '../tool.ts';

const WITH_DOMAINS = new Set<string>(['APPLICATION', 'CONTAINER']);

/** the service the words name, which must be an application or a container */
async function withDomains(call: ToolCall, words: Parameters<typeof findService>[2]): Promise<ServicePlace & { service_type: DomainServiceType }> {
  const s = await findService(call.ctx.db, call.principal, words);
  if (!WITH_DOMAINS.has(s.service_type)) throw badRequest(`${s.service_name} is a ${s.service_type}: only applications and containers have custom domains`);
  return s as ServicePlace & { service_type: DomainServiceType };
}

const placeOf = (s: ServicePlace) => ({ id: s.service_id, name: s.service_name, type: s.service_type, environment: s.environment_name });
const DomainWord = Type.String({ minLength: 1, maxLength: 253, description: 'the custom domain: its name (any case, Unicode or punycode) or its id' });

export const domainTools = [
  tool({
    name: 'list_custom_domains', title: 'List the custom domains of a service', action: 'read', reach: 'environment',
    description: 'The custom domains of an application or container, each with its status (VALIDATION_PENDING: waiting for DNS; CERTIFICATE_PENDING; ACTIVE; FAILED), berth\'s message saying why, the DNS record to create, and the certificate\'s expiry.',
    input: Type.Object(ServicePlaceInput),
    run: async (call, a) => {
      const s = await withDomains(call, a);
      return { service: placeOf(s), domains: (await call.ctx.services.domains.list(call.principal, s.service_type, s.service_id)).results };
    },
  }),
  tool({
    name: 'add_custom_domain', title: 'Add a custom domain to a service', action: 'write', reach: 'environment',
    hints: { destructiveHint: false, idempotentHint: false, openWorldHint: true },
    description: 'Serve an application or container at a domain of the person\'s own (e.g. shop.example.com). Answers the DNS record they must create at their DNS provider; berth then checks DNS, orders a certificate and serves HTTPS. Follow it with check_custom_domains or list_custom_domains.',
    input: Type.Object({
      ...ServicePlaceInput,
      domain: CustomDomainRequest.properties.domain,
      generate_certificate: CustomDomainRequest.properties.generate_certificate,
      use_cdn: CustomDomainRequest.properties.use_cdn,
    }),
    run: async (call, a) => {
      const s = await withDomains(call, a);
      const made = await call.ctx.services.domains.create(call.principal, s.service_type, s.service_id, {
        domain: a.domain, ...(a.generate_certificate !== undefined ? { generate_certificate: a.generate_certificate } : {}), ...(a.use_cdn !== undefined ? { use_cdn: a.use_cdn } : {}),
      });
      await call.audit('CREATE', s.service_type, s.service_id, JSON.stringify({ custom_domain: made.domain }));
      const r = made.dns_record;
      return {
        service: placeOf(s), custom_domain: made, record_to_create: r,
        next: `Create the DNS record ${r.type} ${r.name} → ${r.value} at the domain's DNS provider; berth checks DNS in the background (check_custom_domains asks now).`,
      };
    },
  }),
  tool({
    name: 'remove_custom_domain', title: 'Remove a custom domain from a service', action: 'write', reach: 'environment',
    hints: { destructiveHint: true, idempotentHint: true, openWorldHint: false },
    description: 'Remove a custom domain from an application or container: berth stops serving it and drops its certificate. The service keeps its own berth host name.',
    input: Type.Object({ ...ServicePlaceInput, domain: DomainWord }),
    run: async (call, a) => {
      const s = await withDomains(call, a);
      const { domains } = call.ctx.services;
      const all = (await domains.list(call.principal, s.service_type, s.service_id)).results;
      const found = all.find((d) => d.id === a.domain.toLowerCase()) ?? all.find((d) => d.domain === storedForm(a.domain));
      if (!found) throw notFound(`Custom domain ${a.domain} of ${s.service_name}`);
      await domains.remove(call.principal, s.service_type, s.service_id, found.id);
      await call.audit('DELETE', s.service_type, s.service_id, JSON.stringify({ custom_domain: found.domain }));
      return { service: placeOf(s), removed: { id: found.id, domain: found.domain } };
    },
  }),
  tool({
    name: 'check_custom_domains', title: 'Check where the custom domains of a service point', action: 'read', reach: 'environment',
    description: 'Ask DNS now, for each custom domain of an application or container, whether it points at berth (MATCHES_LOAD_BALANCER_HOST, or RESOLVES_TO_IP behind a CDN) or not (DOMAIN_NOT_CONFIGURED, DOMAIN_LINKED_TO_WRONG_HOST with where it resolves and the record to create, GENERIC_FAILURE).',
    input: Type.Object(ServicePlaceInput),
    run: async (call, a) => {
      const s = await withDomains(call, a);
      return { service: placeOf(s), results: (await call.ctx.services.domains.check(call.principal, s.service_type, s.service_id)).results };
    },
  }),
];
