-- Snapshot rows are read through the access layers (row filter, field mask) in the caller's
-- access session, which runs as weft_records_api: it may read the snapshot tables the snapshot
-- job creates (as the owner running this migration) in records_snapshots, and nothing more there.
GRANT USAGE ON SCHEMA records_snapshots TO weft_records_api;
GRANT SELECT ON ALL TABLES IN SCHEMA records_snapshots TO weft_records_api;
ALTER DEFAULT PRIVILEGES IN SCHEMA records_snapshots GRANT SELECT ON TABLES TO weft_records_api;
