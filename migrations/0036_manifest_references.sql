-- A variable or secret a berth.yaml set from a database's credentials (`{from_database: {name,
-- property}}`, decision 0745): which database (by id: a rename keeps it) and which property, so an
-- export writes the reference back rather than the value. Null for every other owned resource.
alter table manifest_resources add column reference jsonb;
