-- 0009: API quality (issue 14).

-- Cluster advanced settings: only the keys that differ from the defaults (src/modules/clusters/cluster-settings.ts).
alter table clusters add column advanced_settings jsonb not null default '{}'::jsonb;
