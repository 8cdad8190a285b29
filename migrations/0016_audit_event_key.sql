-- The audit log is read by organization, newest first from a `seq` cursor (audit.repo.ts
-- listEvents), never by `seq` alone: its primary key on `seq` and the (organization_id, seq desc)
-- index were two B-trees kept up to date for one way of reading, on the write every mutation makes
-- (and both with every insert landing on the same leaf page). The key is now (organization_id,
-- seq), read backwards for the newest first; the separate index goes (issue 15).
alter table audit_events drop constraint audit_events_pkey;
drop index audit_events_org_seq_idx;
alter table audit_events add primary key (organization_id, seq);
