-- Custom domains and their certificates (issue 38, decision 0349).
--
-- A custom domain belongs to one application or container in the whole installation (the
-- unique domain, stored as punycode, lower case). Its lifecycle: VALIDATION_PENDING (waiting for
-- DNS to point at berth; `message` says what it resolves to and the record to create),
-- CERTIFICATE_PENDING (DNS answers, a certificate is being ordered), ACTIVE (served; with a
-- certificate when generate_certificate), FAILED (the CA refused: `message` is its own words,
-- `retry_at` when berth tries again). `attempts` counts failures in a row, for the back-off.
create table custom_domains (
  id                    uuid primary key default gen_random_uuid(),
  organization_id       uuid not null references organizations (id) on delete cascade,
  service_id            uuid not null references services (id) on delete cascade,
  domain                text not null,
  generate_certificate  boolean not null default true,
  use_cdn               boolean not null default false,
  status                text not null default 'VALIDATION_PENDING'
                        check (status in ('VALIDATION_PENDING', 'CERTIFICATE_PENDING', 'ACTIVE', 'FAILED')),
  message               text,
  retry_at              timestamptz,
  attempts              integer not null default 0,
  checked_at            timestamptz,
  created_at            timestamptz not null default now(),
  updated_at            timestamptz
);
create unique index custom_domains_domain_key on custom_domains (domain);
create index custom_domains_service_idx on custom_domains (service_id, created_at, id);
create index custom_domains_due_idx on custom_domains (status, retry_at);

-- A certificate per host name, sealed (the key) so every berth process and a rebuilt host have it;
-- kept by host, not by domain row, so a domain removed and added again reuses a live certificate.
create table certificates (
  host          text primary key,
  chain_pem     text not null,
  key_sealed    text not null,
  not_before    timestamptz not null,
  not_after     timestamptz not null,
  issuer        text not null,
  created_at    timestamptz not null default now()
);

-- The ACME account of each CA directory (its key sealed) and the pending HTTP-01 answers the
-- ingress forwards to berth (any berth process answers: they are read from here).
create table acme_accounts (
  directory_url text primary key,
  key_sealed    text not null,
  account_url   text,
  created_at    timestamptz not null default now()
);
create table acme_challenges (
  token             text primary key,
  host              text not null,
  key_authorization text not null,
  created_at        timestamptz not null default now()
);
