-- Access layer 7: row-level security. Requests on schemas with row filters switch (SET LOCAL ROLE,
-- inside their transaction) to weft_records_api, which owns nothing and cannot bypass RLS, so the
-- policies generated from each schema's rules (src/records/access/rls-ddl.ts) always apply to
-- them. Roles are cluster-wide: another database of the cluster may have created it already.
DO $$
BEGIN
  CREATE ROLE weft_records_api NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS;
EXCEPTION WHEN duplicate_object OR unique_violation THEN
  NULL;
END
$$;

-- The connecting role must be allowed to switch to it (superusers always are).
DO $$
BEGIN
  IF NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
    EXECUTE format('GRANT weft_records_api TO %I', current_user);
  END IF;
END
$$;

-- What a request writes besides its record (idempotency keys; history and audit tables created
-- later by the same owner) is granted to it; credentials and secrets are not.
GRANT USAGE ON SCHEMA records TO weft_records_api;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA records TO weft_records_api;
REVOKE ALL ON records.api_keys, records.service_secrets FROM weft_records_api;
ALTER DEFAULT PRIVILEGES IN SCHEMA records GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO weft_records_api;
ALTER DEFAULT PRIVILEGES IN SCHEMA records GRANT USAGE, SELECT ON SEQUENCES TO weft_records_api;

-- The caller's roles, from the `weft.roles` setting of the request's transaction (a text[]
-- literal); none outside a request. Policies call it as `(SELECT records.actor_roles())`.
CREATE FUNCTION records.actor_roles() RETURNS text[]
  LANGUAGE sql STABLE PARALLEL SAFE
  AS $$ SELECT coalesce(nullif(current_setting('weft.roles', true), ''), '{}')::text[] $$;
