-- A record id stays taken while the record is archived (docs/records/access-control.md, "Every
-- write path"): a create with a client-supplied id must not put a new record in the place of an
-- archived one the caller may not see or write (the archived record would become unreachable).
-- Creates run as weft_records_api (access sessions) or as the service's login, neither of which
-- reads cold storage, so they ask this function, which answers as its owner and reveals only
-- whether the id is archived for that schema (the 409 the create gets says no more).
CREATE FUNCTION records.archived_record_exists(p_schema_path text, p_record_id uuid) RETURNS boolean
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
  AS $$ SELECT EXISTS (SELECT 1 FROM records_archive.records a WHERE a.schema_path = p_schema_path AND a.record_id = p_record_id) $$;
REVOKE ALL ON FUNCTION records.archived_record_exists(text, uuid) FROM PUBLIC;
-- Executed by: weft_records_api (creates in an access session) and weft_records_app (the service's
-- own role, when it exists); nothing else.
GRANT EXECUTE ON FUNCTION records.archived_record_exists(text, uuid) TO weft_records_api;
DO $$
BEGIN
  IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'weft_records_app') THEN
    GRANT EXECUTE ON FUNCTION records.archived_record_exists(text, uuid) TO weft_records_app;
  END IF;
END $$;
