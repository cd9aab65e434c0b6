-- Cold storage (docs/records/archive.md): compact, append-only copies of archived records and their
-- history, partitioned by month of archival. Partitions are created by the archive job on demand.
CREATE SCHEMA IF NOT EXISTS records_archive;
CREATE TABLE records_archive.records (
  schema_path text NOT NULL,
  record_id uuid NOT NULL,
  version integer NOT NULL,
  archived_at timestamptz NOT NULL,
  record jsonb NOT NULL
) PARTITION BY RANGE (archived_at);
CREATE INDEX archive_records_lookup ON records_archive.records (schema_path, record_id);
CREATE TABLE records_archive.history (
  schema_path text NOT NULL,
  record_id uuid NOT NULL,
  event_id bigint NOT NULL,
  "timestamp" timestamptz NOT NULL,
  actor text NOT NULL,
  operation text NOT NULL,
  old_value jsonb,
  new_value jsonb,
  state jsonb NOT NULL,
  reason text,
  archived_at timestamptz NOT NULL
) PARTITION BY RANGE (archived_at);
CREATE INDEX archive_history_lookup ON records_archive.history (schema_path, record_id, event_id);

-- Typo-tolerant search (search tier 3) compares trigrams.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
