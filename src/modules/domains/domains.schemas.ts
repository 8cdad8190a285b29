// Custom domain request and response shapes: Qovery's CustomDomain, CustomDomainRequest and
// CheckedCustomDomainsResponse, plus berth's readable lifecycle (message, the DNS record to
// create, certificate expiry, when a failed order is tried again).
import { Type, type Static } from 'typebox';
import { NullableString, Timestamp, Uuid } from '../../http/schemas.ts';

export const CustomDomainRequest = Type.Object({
  domain: Type.String({ minLength: 1, maxLength: 253, description: 'the host name (internationalised names are stored as punycode); a wildcard (*.example.com) needs a DNS-01 provider' }),
  generate_certificate: Type.Optional(Type.Boolean({ default: true, description: 'false: a CDN or the user terminates TLS; berth serves the domain over HTTP only' })),
  use_cdn: Type.Optional(Type.Boolean({ default: false, description: 'the domain is proxied by a CDN: its DNS is only checked to resolve to some address' })),
  // an unknown member is refused, not dropped (the body validator drops them where this says false):
  // a misspelt generate_certificate must not order a certificate for a domain a CDN terminates
}, { additionalProperties: { not: {} } });
export type CustomDomainRequest = Static<typeof CustomDomainRequest>;

const CustomDomainStatus = Type.Union(
  [Type.Literal('VALIDATION_PENDING'), Type.Literal('CERTIFICATE_PENDING'), Type.Literal('ACTIVE'), Type.Literal('FAILED')],
  { description: 'VALIDATION_PENDING: waiting for DNS; CERTIFICATE_PENDING: ordering the certificate; ACTIVE: served; FAILED: the CA refused (message, retry_at)' },
);

const DnsRecord = Type.Object({
  type: Type.String({ description: 'CNAME (or A for an apex domain, which cannot hold a CNAME)' }),
  name: Type.String(),
  value: Type.String(),
});

export const CustomDomain = Type.Object({
  id: Uuid,
  created_at: Timestamp,
  updated_at: Timestamp,
  domain: Type.String(),
  generate_certificate: Type.Boolean(),
  use_cdn: Type.Boolean(),
  validation_domain: Type.String({ description: "berth's host name of the service: point a CNAME at it" }),
  status: CustomDomainStatus,
  message: NullableString,
  dns_record: DnsRecord,
  certificate_expires_at: Type.Union([Timestamp, Type.Null()]),
  retry_at: Type.Union([Timestamp, Type.Null()], { description: 'FAILED: when berth orders the certificate again' }),
  checked_at: Type.Union([Timestamp, Type.Null()]),
});
export type CustomDomain = Static<typeof CustomDomain>;

export const CustomDomainList = Type.Object({ results: Type.Array(CustomDomain) });

export const CheckedStatus = Type.Union([
  Type.Literal('RESOLVES_TO_IP'), Type.Literal('MATCHES_LOAD_BALANCER_HOST'), Type.Literal('DOMAIN_NOT_CONFIGURED'),
  Type.Literal('DOMAIN_LINKED_TO_WRONG_HOST'), Type.Literal('GENERIC_FAILURE'),
]);
export type CheckedStatus = Static<typeof CheckedStatus>;

export const CheckedCustomDomain = Type.Object({
  domain_name: Type.String(),
  status: CheckedStatus,
  error_details: NullableString,
});
export type CheckedCustomDomain = Static<typeof CheckedCustomDomain>;

export const CheckedCustomDomains = Type.Object({ results: Type.Array(CheckedCustomDomain) });
