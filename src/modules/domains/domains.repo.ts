// SQL for the domains module's tables: custom_domains, certificates, acme_accounts, acme_challenges.
import type { Queryable } from '../../db/db.ts';
import type { ConstraintMessages } from '../../db/errors.ts';

/** the user-facing messages of this module's constraints (composed in src/modules/constraints.ts) */
export const DOMAIN_CONSTRAINTS: ConstraintMessages = {
  custom_domains_domain_key: { status: 409, message: 'This domain is already used by a service' },
};

export type DomainStatus = 'VALIDATION_PENDING' | 'CERTIFICATE_PENDING' | 'ACTIVE' | 'FAILED';

export interface DomainRow {
  id: string; organization_id: string; service_id: string; domain: string; generate_certificate: boolean; use_cdn: boolean;
  status: DomainStatus; message: string | null; retry_at: Date | null; attempts: number; checked_at: Date | null;
  created_at: Date; updated_at: Date | null;
  /** joined from certificates */
  certificate_not_before: Date | null;
  certificate_not_after: Date | null;
}

const SELECT = `select d.id, d.organization_id, d.service_id, d.domain, d.generate_certificate, d.use_cdn, d.status, d.message,
  d.retry_at, d.attempts, d.checked_at, d.created_at, d.updated_at, c.not_before as certificate_not_before, c.not_after as certificate_not_after
  from custom_domains d left join certificates c on c.host = d.domain`;

export async function listServiceDomains(db: Queryable, serviceId: string): Promise<DomainRow[]> {
  return db.query<DomainRow>(`${SELECT} where d.service_id = $1 order by d.created_at, d.id`, [serviceId]);
}

export async function findDomain(db: Queryable, serviceId: string, id: string): Promise<DomainRow | null> {
  return (await db.query<DomainRow>(`${SELECT} where d.service_id = $1 and d.id = $2`, [serviceId, id]))[0] ?? null;
}

export async function findDomainById(db: Queryable, id: string): Promise<DomainRow | null> {
  return (await db.query<DomainRow>(`${SELECT} where d.id = $1`, [id]))[0] ?? null;
}

/** who holds a domain (any service of the installation) */
export async function domainHolder(db: Queryable, domain: string): Promise<{ id: string; service_id: string; organization_id: string } | null> {
  return (await db.query<{ id: string; service_id: string; organization_id: string }>(
    'select id, service_id, organization_id from custom_domains where domain = $1', [domain]))[0] ?? null;
}

export async function insertDomain(db: Queryable, v: { organizationId: string; serviceId: string; domain: string; generateCertificate: boolean; useCdn: boolean }): Promise<string> {
  const rows = await db.query<{ id: string }>(
    `insert into custom_domains (organization_id, service_id, domain, generate_certificate, use_cdn) values ($1, $2, $3, $4, $5) returning id`,
    [v.organizationId, v.serviceId, v.domain, v.generateCertificate, v.useCdn]);
  return rows[0]!.id;
}

/** a changed request starts the lifecycle again */
export async function updateDomain(db: Queryable, id: string, v: { domain: string; generateCertificate: boolean; useCdn: boolean }): Promise<void> {
  await db.query(
    `update custom_domains set domain = $2, generate_certificate = $3, use_cdn = $4, status = 'VALIDATION_PENDING', message = null,
       retry_at = null, attempts = 0, updated_at = now() where id = $1`, [id, v.domain, v.generateCertificate, v.useCdn]);
}

export async function deleteDomain(db: Queryable, id: string): Promise<void> {
  await db.query('delete from custom_domains where id = $1', [id]);
}

/** the new state of a domain (updated_at moves only when its status or message does; checked_at at every visit) */
export async function setDomainState(db: Queryable, id: string, s: { status: DomainStatus; message: string | null; retryAt?: Date | null; attempts?: number; checked: boolean }): Promise<void> {
  await db.query(
    `update custom_domains set status = $2, message = $3, retry_at = $4, attempts = coalesce($5, attempts),
       checked_at = case when $6 then now() else checked_at end,
       updated_at = case when status is distinct from $2 or message is distinct from $3 then now() else updated_at end where id = $1`,
    [id, s.status, s.message, s.retryAt ?? null, s.attempts ?? null, s.checked]);
}

/** domains whose lifecycle the periodic pass moves on: waiting for DNS or a certificate, failed and due again, or active (for renewal) */
export async function domainsToVisit(db: Queryable, limit: number): Promise<DomainRow[]> {
  return db.query<DomainRow>(
    `${SELECT} where d.status <> 'FAILED' or d.retry_at is null or d.retry_at <= now() order by d.checked_at nulls first, d.id limit $1`, [limit]);
}

/** every domain the ingress should route: those whose DNS answered (ACTIVE, or ordering / failing their certificate) */
export async function routableDomains(db: Queryable): Promise<DomainRow[]> {
  return db.query<DomainRow>(`${SELECT} where d.status in ('ACTIVE', 'CERTIFICATE_PENDING', 'FAILED') order by d.id`);
}

export interface CertificateRow { host: string; chain_pem: string; key_sealed: string; not_before: Date; not_after: Date; issuer: string }

export async function findCertificate(db: Queryable, host: string): Promise<CertificateRow | null> {
  return (await db.query<CertificateRow>('select host, chain_pem, key_sealed, not_before, not_after, issuer from certificates where host = $1', [host]))[0] ?? null;
}

export async function saveCertificate(db: Queryable, c: CertificateRow): Promise<void> {
  await db.query(
    `insert into certificates (host, chain_pem, key_sealed, not_before, not_after, issuer) values ($1, $2, $3, $4, $5, $6)
     on conflict (host) do update set chain_pem = excluded.chain_pem, key_sealed = excluded.key_sealed, not_before = excluded.not_before,
       not_after = excluded.not_after, issuer = excluded.issuer, created_at = now()`,
    [c.host, c.chain_pem, c.key_sealed, c.not_before, c.not_after, c.issuer]);
}

export async function deleteCertificate(db: Queryable, host: string): Promise<void> {
  await db.query('delete from certificates where host = $1', [host]);
}

export async function findAccount(db: Queryable, directoryUrl: string): Promise<{ key_sealed: string; account_url: string | null } | null> {
  return (await db.query<{ key_sealed: string; account_url: string | null }>('select key_sealed, account_url from acme_accounts where directory_url = $1', [directoryUrl]))[0] ?? null;
}

export async function saveAccount(db: Queryable, directoryUrl: string, keySealed: string, accountUrl: string | null): Promise<void> {
  await db.query(
    `insert into acme_accounts (directory_url, key_sealed, account_url) values ($1, $2, $3)
     on conflict (directory_url) do update set account_url = coalesce(excluded.account_url, acme_accounts.account_url)`,
    [directoryUrl, keySealed, accountUrl]);
}

export async function setAccountUrl(db: Queryable, directoryUrl: string, accountUrl: string): Promise<void> {
  await db.query('update acme_accounts set account_url = $2 where directory_url = $1 and account_url is distinct from $2', [directoryUrl, accountUrl]);
}

export async function putChallenge(db: Queryable, token: string, host: string, keyAuthorization: string): Promise<void> {
  await db.query(
    `insert into acme_challenges (token, host, key_authorization) values ($1, $2, $3)
     on conflict (token) do update set key_authorization = excluded.key_authorization`, [token, host, keyAuthorization]);
}

export async function challengeAnswer(db: Queryable, token: string): Promise<string | null> {
  return (await db.query<{ key_authorization: string }>('select key_authorization from acme_challenges where token = $1', [token]))[0]?.key_authorization ?? null;
}

export async function dropChallenge(db: Queryable, token: string): Promise<void> {
  await db.query('delete from acme_challenges where token = $1', [token]);
}

export interface OrderRow { host: string; attempts: number; retry_at: Date | null; message: string | null }

export async function findOrder(db: Queryable, host: string): Promise<OrderRow | null> {
  return (await db.query<OrderRow>('select host, attempts, retry_at, message from certificate_orders where host = $1', [host]))[0] ?? null;
}

/** a failed order of `host`: its attempts, when it is tried again and the CA's words; null clears it (the order succeeded) */
export async function setOrder(db: Queryable, host: string, failure: { attempts: number; retryAt: Date; message: string } | null): Promise<void> {
  if (failure === null) {
    await db.query('delete from certificate_orders where host = $1', [host]);
    return;
  }
  await db.query(
    `insert into certificate_orders (host, attempts, retry_at, message) values ($1, $2, $3, $4)
     on conflict (host) do update set attempts = excluded.attempts, retry_at = excluded.retry_at, message = excluded.message, updated_at = now()`,
    [host, failure.attempts, failure.retryAt, failure.message]);
}
