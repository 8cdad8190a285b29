-- The back-off of certificates berth orders for itself rather than for a custom domain: the
-- wildcard certificate of INGRESS_DOMAIN's hosts (INGRESS_DOMAIN_HTTPS, decision 0349). A failed
-- order is tried again at retry_at (the CA's own time when it gave one), and its message says why.
create table certificate_orders (
  host        text primary key,
  attempts    integer not null default 0,
  retry_at    timestamptz,
  message     text,
  updated_at  timestamptz not null default now()
);
