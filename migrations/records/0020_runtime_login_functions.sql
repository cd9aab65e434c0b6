-- Functions added after 0012 that the runtime login calls outside a request role session: the
-- audit verify of a schema without row security recomputes history row hashes (0014).
DO $$
BEGIN
  IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'weft_records_app') THEN
    GRANT EXECUTE ON FUNCTION records.history_row_hash(bigint, uuid, timestamptz, text, text, jsonb, jsonb, jsonb, text)
      TO weft_records_app;
  END IF;
END $$;
