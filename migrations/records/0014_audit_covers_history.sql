-- History rows join the audit hash chain (docs/records/audit.md, "History in the chain"). The
-- change trigger of a time-machine schema writes the history row first, then the audit event,
-- which names the row (`history_event_id`) and carries its hash (`history_hash`); both are part of
-- the event's own hash, so editing, deleting or re-pointing a history row breaks the chain.
--
-- Existing data is left as it is and counted as legacy: events written before this migration have
-- no history link (NULL), their hash is unchanged (the history keys enter an event's hashed content
-- only when it has a link), and history rows older than a record's first linked event are reported
-- by verify as legacy rather than checked. Nothing is re-hashed: re-hashing would be the very
-- rewrite the chain exists to reveal.
ALTER TABLE records.audit_events
  ADD COLUMN history_event_id bigint,
  ADD COLUMN history_hash text;

-- The hash of one history row (hot `hist_<org>.<table>` or `records_archive.history`):
--   hex(SHA-256(utf8(canonical_json({event_id, record_id, timestamp, actor, operation, old_value,
--                                    new_value, state, reason}))))
-- with the timestamp printed as the audit log prints it. A pure function of its arguments: it reads
-- no table. Called by the change triggers (as the table owner) and by verify, which runs in the
-- caller's access session, so the request role weft_records_api may execute it.
CREATE FUNCTION records.history_row_hash(
  p_event_id bigint, p_record_id uuid, p_at timestamptz, p_actor text, p_operation text,
  p_old jsonb, p_new jsonb, p_state jsonb, p_reason text
) RETURNS text LANGUAGE sql STABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp AS $$
  SELECT encode(sha256(convert_to(records.canonical_json(jsonb_build_object(
    'event_id', p_event_id, 'record_id', p_record_id,
    'timestamp', to_char(p_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
    'actor', p_actor, 'operation', p_operation, 'old_value', p_old, 'new_value', p_new,
    'state', p_state, 'reason', p_reason)), 'UTF8')), 'hex')
$$;
REVOKE ALL ON FUNCTION records.history_row_hash(bigint, uuid, timestamptz, text, text, jsonb, jsonb, jsonb, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION records.history_row_hash(bigint, uuid, timestamptz, text, text, jsonb, jsonb, jsonb, text) TO weft_records_api;

-- Appends one event to a record's chain, linked to the history row written for the same change
-- (NULL link: a schema without time machine). The eight-argument version of 0002 stays for
-- trigger functions generated before this migration, until the service regenerates them at start.
-- Only the change triggers call it (SECURITY DEFINER, as the table owner): no grant to anyone.
CREATE FUNCTION records.append_audit(
  p_schema text, p_entity uuid, p_operation text, p_actor text, p_at timestamptz, p_version integer,
  p_old jsonb, p_new jsonb, p_history_event_id bigint, p_history_hash text
) RETURNS void LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
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
  IF p_history_hash IS NOT NULL THEN
    event := event || jsonb_build_object('history_event_id', p_history_event_id, 'history_hash', p_history_hash);
  END IF;
  INSERT INTO records.audit_events
    (event_id, "timestamp", actor, schema_path, entity_id, operation, version, old_value, new_value,
     previous_hash, hash, history_event_id, history_hash)
  VALUES (id, p_at, p_actor, p_schema, p_entity, p_operation, p_version, p_old, p_new, previous,
          encode(sha256(convert_to(previous || records.canonical_json(event), 'UTF8')), 'hex'),
          p_history_event_id, p_history_hash);
END $$;
REVOKE ALL ON FUNCTION records.append_audit(text, uuid, text, text, timestamptz, integer, jsonb, jsonb, bigint, text) FROM PUBLIC;
