-- Where a PUBLIC database's port is published, when it is not INGRESS_HOST (issue 29, decision
-- 0343): on the swarm engine, the address of the node its volume is pinned to, recorded at each
-- deployment. Null: INGRESS_HOST (the docker engine publishes there).
alter table database_public_ports add column host text;
