// berth domains [list|add|rm|check] <service> [domain]: the custom domains of an application or
// container (issue 38). list: each domain with its status, the DNS record to create while berth
// waits for DNS, and berth's message (where it resolves, the certificate's expiry, the CA's words
// when it failed); add prints the record to create; rm takes the domain's name (any spelling:
// Unicode or punycode, any case) or its id; check asks DNS now. --json gives the API's objects.
import { domainToASCII, domainToUnicode } from 'node:url';
import { ok, type Api, type paths } from '../api.ts';
import { CliError, EXIT } from '../exit-codes.ts';
import { color, printJson, printTable, shellWord, state } from '../output.ts';
import * as resolve from '../resolve.ts';
import { openSession } from '../session.ts';
import type { TargetOptions } from './services.ts';

type Domain = paths['/application/{applicationId}/customDomain/{customDomainId}']['get']['responses'][200]['content']['application/json'];
type Checked = paths['/application/{applicationId}/checkCustomDomain']['get']['responses'][200]['content']['application/json']['results'][number];

export interface AddOptions extends TargetOptions {
  /** --no-certificate: a CDN or the user terminates TLS */
  certificate?: boolean;
  /** --cdn: the domain is proxied by a CDN */
  cdn?: boolean;
}

type Family = 'application' | 'container';

/** the service the words name, which must have custom domains, and its calls (the two families share one operation shape) */
async function domainsOf(ref: string, opts: TargetOptions) {
  const s = openSession(opts);
  const t = await resolve.target(s.api, s.server.context, opts, 'environment');
  const svc = await resolve.service(s.api, t.environment, ref);
  const seg = resolve.segment(svc);
  if (seg !== 'application' && seg !== 'container') throw new CliError(`${svc.name} is a ${seg}: only applications and containers have custom domains`, EXIT.USAGE);
  return { svc, calls: calls(s.api, seg, svc.id) };
}

function calls(api: Api, seg: Family, id: string) {
  const path = { applicationId: id, containerId: id };
  const one = (customDomainId: string) => ({ params: { path: { ...path, customDomainId } } });
  const list = `/${seg}/{${seg}Id}/customDomain` as '/application/{applicationId}/customDomain';
  const item = `/${seg}/{${seg}Id}/customDomain/{customDomainId}` as '/application/{applicationId}/customDomain/{customDomainId}';
  const check = `/${seg}/{${seg}Id}/checkCustomDomain` as '/application/{applicationId}/checkCustomDomain';
  return {
    list: async (): Promise<Domain[]> => (await ok(api.GET(list, { params: { path } }))).results,
    add: (body: { domain: string; generate_certificate: boolean; use_cdn: boolean }): Promise<Domain> => ok(api.POST(list, { params: { path }, body })),
    remove: (customDomainId: string): Promise<unknown> => ok(api.DELETE(item, one(customDomainId))),
    check: async (): Promise<Checked[]> => (await ok(api.GET(check, { params: { path } }))).results,
  };
}

/** a stored (punycode) name, with its Unicode spelling beside it when that differs */
function shown(domain: string): string {
  const unicode = domainToUnicode(domain);
  return unicode && unicode !== domain ? `${domain} ${color.dim(`(${unicode})`)}` : domain;
}

const record = (d: Domain) => `${d.dns_record.type} ${d.dns_record.name} → ${d.dns_record.value}`;

function status(s: string): string {
  return s === 'ACTIVE' ? color.green(s) : state(s);
}

export async function list(ref: string | undefined, opts: TargetOptions): Promise<void> {
  if (!ref) throw new CliError('missing the service: berth domains list <service> (see berth domains --help)', EXIT.USAGE);
  const { calls: c } = await domainsOf(ref, opts);
  const domains = await c.list();
  if (opts.json) return printJson(domains);
  printTable(['DOMAIN', 'STATUS', 'RECORD TO CREATE', 'MESSAGE'], domains.map((d) => [
    shown(d.domain), status(d.status), d.status === 'VALIDATION_PENDING' ? record(d) : color.dim('-'), d.message ?? color.dim(d.status === 'VALIDATION_PENDING' ? 'not checked yet' : '-'),
  ]));
}

export async function add(ref: string, domain: string, opts: AddOptions): Promise<void> {
  const { svc, calls: c } = await domainsOf(ref, opts);
  const made = await c.add({ domain, generate_certificate: opts.certificate !== false, use_cdn: opts.cdn === true });
  if (opts.json) return printJson(made);
  const out = [
    `added ${shown(made.domain)} to ${svc.name}: ${status(made.status)} (waiting for DNS)`,
    'create this record at your DNS provider:',
    `  ${made.dns_record.type}  ${made.dns_record.name}  ${made.dns_record.value}`,
    made.dns_record.type === 'CNAME' ? color.dim(`  (${made.domain} is an alias of ${made.validation_domain}, berth's host name of ${svc.name})`) : null,
    made.generate_certificate ? `berth then orders its certificate and serves https://${made.domain}/` : `served over HTTP: TLS is terminated before berth (--no-certificate)`,
    `see where it stands: berth domains check ${shellWord(svc.name)}`,
  ];
  process.stdout.write(out.filter((l) => l !== null).join('\n') + '\n');
}

/** the form the server stores a name in (lower case, punycode, no trailing dot) */
const stored = (name: string) => {
  const text = name.trim().toLowerCase().replace(/\.$/, '');
  const wildcard = text.startsWith('*.');
  const ascii = domainToASCII(wildcard ? text.slice(2) : text) || text;
  return wildcard ? `*.${ascii}` : ascii;
};

export async function remove(ref: string, domain: string, opts: TargetOptions): Promise<void> {
  const { svc, calls: c } = await domainsOf(ref, opts);
  const domains = await c.list();
  const found = domains.find((d) => d.id === domain.toLowerCase()) ?? domains.find((d) => d.domain === stored(domain));
  if (!found) {
    const known = domains.map((d) => d.domain).slice(0, 10).join(', ');
    throw new CliError(`no custom domain "${domain}" on ${svc.name}${known ? ` (there: ${known})` : ' (it has none)'}`, EXIT.NOT_FOUND);
  }
  await c.remove(found.id);
  if (opts.json) return printJson({ removed: found });
  process.stdout.write(`removed ${shown(found.domain)} from ${svc.name}: its route and certificate leave the ingress\n`);
}

const GOOD_CHECKS = new Set(['MATCHES_LOAD_BALANCER_HOST', 'RESOLVES_TO_IP']);

export async function check(ref: string, opts: TargetOptions): Promise<void> {
  const { calls: c } = await domainsOf(ref, opts);
  const checked = await c.check();
  if (opts.json) return printJson(checked);
  printTable(['DOMAIN', 'DNS', 'DETAILS'], checked.map((r) => [
    shown(r.domain_name), GOOD_CHECKS.has(r.status) ? color.green(r.status) : color.red(r.status),
    r.error_details ?? (r.status === 'MATCHES_LOAD_BALANCER_HOST' ? 'points at berth' : r.status === 'RESOLVES_TO_IP' ? 'resolves (through the CDN)' : ''),
  ]));
}
