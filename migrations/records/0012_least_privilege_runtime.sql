-- Least privilege for the login the service serves requests with (docs/records/access-control.md,
-- "Database roles"). The owner runs migrations, DDL, the change triggers (SECURITY DEFINER) and the
-- archive and snapshot jobs; the runtime login is a member of weft_records_app, owns nothing and is
-- subject to row-level security; access-controlled requests switch further to weft_records_api.
DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'weft_records_app')
     AND (SELECT rolsuper OR rolcreaterole FROM pg_roles WHERE rolname = current_user) THEN
    CREATE ROLE weft_records_app NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS;
  END IF;
EXCEPTION WHEN duplicate_object OR unique_violation THEN
  NULL;
END $$;

-- Nobody but the owner may append to the audit log: the change triggers do, as the owner. The
-- request role's INSERT (0007) let a request forge a correctly hashed event.
REVOKE INSERT ON records.audit_events FROM weft_records_api;
REVOKE USAGE, SELECT, UPDATE ON SEQUENCE records.audit_events_event_id_seq FROM weft_records_api;
REVOKE ALL ON FUNCTION records.append_audit(text, uuid, text, text, timestamptz, integer, jsonb, jsonb) FROM PUBLIC;
-- Tables the owner adds to the records schema later are granted one by one, not by default.
ALTER DEFAULT PRIVILEGES IN SCHEMA records REVOKE ALL ON TABLES FROM weft_records_api;
ALTER DEFAULT PRIVILEGES IN SCHEMA records REVOKE ALL ON SEQUENCES FROM weft_records_api;
REVOKE ALL ON records.snapshots, records.service_secrets, records.api_keys FROM weft_records_api;

-- Row security of the shared tables that describe records. Each schema adds its own policy on
-- them (src/records/access/derived-rows-rls.ts); the auditor reads every schema's events.
ALTER TABLE records.audit_events ENABLE ROW LEVEL SECURITY;
CREATE POLICY weft_auditor ON records.audit_events FOR SELECT
  USING ((SELECT records.actor_roles()) @> ARRAY['auditor']::text[]);
ALTER TABLE records_archive.records ENABLE ROW LEVEL SECURITY;
ALTER TABLE records_archive.history ENABLE ROW LEVEL SECURITY;
-- Idempotency keys hold the responses of writes: a request session sees its own actor's only.
ALTER TABLE records.idempotency_keys ENABLE ROW LEVEL SECURITY;
CREATE POLICY weft_own_keys ON records.idempotency_keys TO weft_records_api
  USING (actor_id = current_setting('weft.actor_id', true))
  WITH CHECK (actor_id = current_setting('weft.actor_id', true));

DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'weft_records_app') THEN
    RAISE NOTICE 'weft_records_app is missing: the service must connect as the owner (docs/records/access-control.md)';
    RETURN;
  END IF;
  -- The runtime login may take the request role for access-controlled requests.
  GRANT weft_records_api TO weft_records_app;
  GRANT USAGE ON SCHEMA records, records_archive, records_snapshots TO weft_records_app;
  -- Append-only and read-only for the runtime login: audit, cold storage, resource documents.
  REVOKE ALL ON records.audit_events, records_archive.records, records_archive.history,
    records.resources, records.role_bindings, records.service_secrets, records.snapshots
    FROM weft_records_app;
  GRANT SELECT ON records.audit_events, records_archive.records, records_archive.history,
    records.resources, records.role_bindings TO weft_records_app;
  -- What a request changes besides its record.
  GRANT SELECT, INSERT, UPDATE, DELETE ON records.idempotency_keys, records.oidc_sessions,
    records.oidc_logins TO weft_records_app;
  GRANT SELECT, INSERT, UPDATE ON records.api_keys TO weft_records_app;
  GRANT SELECT, INSERT ON records.auth_audit TO weft_records_app;
  GRANT USAGE ON SEQUENCE records.auth_audit_event_id_seq TO weft_records_app;
  GRANT SELECT ON ALL TABLES IN SCHEMA records_snapshots TO weft_records_app;
  CREATE POLICY weft_runtime_keys ON records.idempotency_keys TO weft_records_app USING (true);
END $$;
