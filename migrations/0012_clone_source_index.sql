-- Deleting an environment checks `environments.cloned_from_id` (a self-reference, set null on
-- delete) for clones of it: without an index each check read the whole table, so deleting a
-- project with N environments took O(N²) (20,000 environments: 8.7 s on PostgreSQL; 100,000:
-- 10 minutes on PGlite).
create index environments_cloned_from_idx on environments (cloned_from_id) where cloned_from_id is not null;
