-- Tamper-evident audit log of every record change (see docs/records/audit.md). Rows are written by
-- the change triggers of the record tables (src/records/ddl/change-triggers.ts), in the statement
-- that makes the change. Each record's events form a hash chain:
--   hash = hex(SHA-256(utf8(previous_hash_hex || canonical_json(event)))), previous_hash '' first.
CREATE TABLE records.audit_events (
  event_id bigserial PRIMARY KEY,
  "timestamp" timestamptz NOT NULL,
  actor text NOT NULL,
  schema_path text NOT NULL,
  entity_id uuid NOT NULL,
  operation text NOT NULL,
  version integer NOT NULL,
  old_value jsonb,
  new_value jsonb,
  previous_hash text NOT NULL,
  hash text NOT NULL
);
CREATE INDEX audit_events_chain ON records.audit_events (schema_path, entity_id, event_id);
CREATE INDEX audit_events_actor ON records.audit_events (actor, event_id);
CREATE INDEX audit_events_time ON records.audit_events ("timestamp");

-- Canonical JSON: object keys sorted by code point, no whitespace, scalars as Postgres prints them.
CREATE FUNCTION records.canonical_json(value jsonb) RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT AS $$
BEGIN
  CASE jsonb_typeof(value)
    WHEN 'object' THEN
      RETURN '{' || coalesce((
        SELECT string_agg(to_json(key)::text || ':' || coalesce(records.canonical_json(item), 'null'), ','
                          ORDER BY key COLLATE "C")
        FROM jsonb_each(value) AS entry(key, item)), '') || '}';
    WHEN 'array' THEN
      RETURN '[' || coalesce((
        SELECT string_agg(coalesce(records.canonical_json(item), 'null'), ',' ORDER BY position)
        FROM jsonb_array_elements(value) WITH ORDINALITY AS element(item, position)), '') || ']';
    ELSE
      RETURN value::text;
  END CASE;
END $$;

-- Appends one event to a record's chain. Called from a row trigger after the row is written, so the
-- row lock serialises a record's writers, and this statement's fresh snapshot sees the chain head
-- its predecessor committed.
CREATE FUNCTION records.append_audit(
  p_schema text, p_entity uuid, p_operation text, p_actor text, p_at timestamptz, p_version integer,
  p_old jsonb, p_new jsonb
) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  previous text;
  id bigint;
  event jsonb;
BEGIN
  SELECT hash INTO previous FROM records.audit_events
   WHERE schema_path = p_schema AND entity_id = p_entity ORDER BY event_id DESC LIMIT 1;
  previous := coalesce(previous, '');
  id := nextval(pg_get_serial_sequence('records.audit_events', 'event_id'));
  event := jsonb_build_object(
    'event_id', id,
    'timestamp', to_char(p_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
    'actor', p_actor, 'schema', p_schema, 'entity_id', p_entity, 'operation', p_operation,
    'version', p_version, 'old_value', p_old, 'new_value', p_new);
  INSERT INTO records.audit_events
    (event_id, "timestamp", actor, schema_path, entity_id, operation, version, old_value, new_value,
     previous_hash, hash)
  VALUES (id, p_at, p_actor, p_schema, p_entity, p_operation, p_version, p_old, p_new, previous,
          encode(sha256(convert_to(previous || records.canonical_json(event), 'UTF8')), 'hex'));
END $$;

-- The application's group role: a login role the service connects with is made a member of it.
-- It may append and read audit rows, never change or remove them. Creating it needs CREATEROLE; a
-- migrating user without it leaves provisioning to the operator (docs/records/audit.md).
DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'weft_records_app') THEN
    IF (SELECT rolsuper OR rolcreaterole FROM pg_roles WHERE rolname = current_user) THEN
      CREATE ROLE weft_records_app NOLOGIN;
    ELSE
      RAISE NOTICE 'weft_records_app is missing and % may not create roles', current_user;
    END IF;
  END IF;
  IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'weft_records_app') THEN
    GRANT USAGE ON SCHEMA records TO weft_records_app;
    GRANT SELECT, INSERT ON records.audit_events TO weft_records_app;
    GRANT USAGE ON SEQUENCE records.audit_events_event_id_seq TO weft_records_app;
    REVOKE UPDATE, DELETE, TRUNCATE ON records.audit_events FROM weft_records_app;
  END IF;
END $$;
REVOKE ALL ON records.audit_events FROM PUBLIC;
