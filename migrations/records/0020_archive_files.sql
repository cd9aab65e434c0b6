-- The manifest of the archive's files in object storage (docs/records/archive.md, "Files"). A file
-- set (three Parquet files and a manifest object under `object_prefix`) holds archived records of
-- one schema and one UTC month with their history and audit events. Its row is written in the
-- transaction that removes what it holds from PostgreSQL, so a set without a row is an unfinished
-- export (never read, swept later) and every archived record is in exactly one place.
CREATE TABLE records_archive.files (
  file_set_id uuid PRIMARY KEY,
  schema_path text NOT NULL,
  month date NOT NULL,
  object_prefix text NOT NULL UNIQUE,
  record_count integer NOT NULL,
  history_count integer NOT NULL,
  audit_count integer NOT NULL,
  min_archived_at timestamptz NOT NULL,
  max_archived_at timestamptz NOT NULL,
  -- Bytes and SHA-256 of each Parquet file: {"records": {"bytes": n, "sha256": "…"}, …}.
  files jsonb NOT NULL,
  -- Minimum and maximum of each prunable column, as text: {"priority": ["1", "90"], …}.
  column_bounds jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX archive_files_by_schema ON records_archive.files (schema_path, max_archived_at DESC);
-- A record brought back from a file set (unarchive puts its rows back into PostgreSQL first) leaves
-- a stale copy in that set's files: this table says so, so every archived record has exactly one
-- current copy. Retention and erasure rewrite files without such copies.
CREATE TABLE records_archive.superseded_copies (
  file_set_id uuid NOT NULL REFERENCES records_archive.files ON DELETE CASCADE,
  record_id uuid NOT NULL,
  PRIMARY KEY (file_set_id, record_id)
);
-- File sets being written: a row is committed before the first object is uploaded and removed in
-- the transaction that lists the set, so a crash in between leaves a row the sweep uses to remove
-- the unlisted objects (an old row is an export that died).
CREATE TABLE records_archive.pending_file_sets (
  object_prefix text PRIMARY KEY,
  schema_path text NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now()
);
REVOKE ALL ON records_archive.files, records_archive.superseded_copies, records_archive.pending_file_sets FROM PUBLIC;
-- The runtime login reads the manifest to find archived records; only the owner (the archive job)
-- adds, rewrites or removes file sets.
DO $$
BEGIN
  IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'weft_records_app') THEN
    GRANT SELECT ON records_archive.files, records_archive.superseded_copies TO weft_records_app;
  END IF;
END $$;
