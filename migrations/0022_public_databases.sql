-- The host port of each PUBLIC database (issue 31, item 2; decision 0333): reserved when the
-- database becomes PUBLIC, freed when it is edited PRIVATE or deleted, one database per port.
-- The docker engine publishes it on INGRESS_HOST. Databases already PUBLIC get ports from the
-- start of the default DATABASE_PUBLIC_PORTS range (30000-30999), in creation order.
create table database_public_ports (
  service_id uuid primary key references services (id) on delete cascade,
  port       integer not null unique check (port between 1 and 65535),
  created_at timestamptz not null default now()
);
insert into database_public_ports (service_id, port)
  select id, 29999 + row_number() over (order by created_at, id)
    from services where type = 'DATABASE' and spec->>'accessibility' = 'PUBLIC';
