-- Cold storage is append-only (docs/records/archive.md): the application's role may add and read
-- archived records and history, never change or remove them. Unarchiving copies a record back to
-- hot storage and leaves its archived copy in place.
DO $$
BEGIN
  IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'weft_records_app') THEN
    GRANT USAGE ON SCHEMA records_archive TO weft_records_app;
    GRANT SELECT, INSERT ON records_archive.records, records_archive.history TO weft_records_app;
    REVOKE UPDATE, DELETE, TRUNCATE ON records_archive.records, records_archive.history FROM weft_records_app;
  END IF;
END $$;
REVOKE ALL ON records_archive.records, records_archive.history FROM PUBLIC;

-- Newest archival first is how the archive query pages; per-schema scans stay on one index.
CREATE INDEX archive_records_by_schema ON records_archive.records (schema_path, archived_at DESC, record_id);
