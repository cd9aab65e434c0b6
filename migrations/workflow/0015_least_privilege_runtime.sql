-- Least privilege for the login the workflow service serves requests with (docs/workflow/identity.md,
-- "Database roles"). The owner (WORKFLOW_MIGRATION_DATABASE_URL) runs migrations and the history
-- housekeeping; the runtime login is a member of weft_workflow_app, owns nothing, and may append to
-- the execution history but never change or remove it.
DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'weft_workflow_app')
     AND (SELECT rolsuper OR rolcreaterole FROM pg_roles WHERE rolname = current_user) THEN
    CREATE ROLE weft_workflow_app NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS;
  END IF;
EXCEPTION WHEN duplicate_object OR unique_violation THEN
  NULL;
END $$;

DO $$
DECLARE
  schema_name text := current_schema();
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'weft_workflow_app') THEN
    RAISE NOTICE 'weft_workflow_app is missing: the service must connect as the owner (docs/workflow/identity.md)';
    RETURN;
  END IF;
  EXECUTE format('GRANT USAGE ON SCHEMA %I TO weft_workflow_app', schema_name);
  EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA %I TO weft_workflow_app', schema_name);
  EXECUTE format('GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA %I TO weft_workflow_app', schema_name);
  -- Tables of later migrations are granted the same; an append-only one revokes in its migration.
  EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA %I GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO weft_workflow_app', schema_name);
  EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA %I GRANT USAGE, SELECT ON SEQUENCES TO weft_workflow_app', schema_name);
  -- The execution history is append-only for the runtime login (retention runs as the owner), and
  -- the migration ledger is the owner's.
  REVOKE UPDATE, DELETE, TRUNCATE ON process_history FROM weft_workflow_app;
  REVOKE ALL ON weft_migrations FROM weft_workflow_app;
END $$;
