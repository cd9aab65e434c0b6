-- Messages and signals: one row per open message or signal wait of an instance (catch events,
-- receive tasks, boundary events, event-based gateway branches, event sub-process starts), written
-- and deleted by the engine's own write, so a subscription exists exactly while its wait is open.
-- Buffered messages wait here for the first subscription that opens before they expire.

CREATE TABLE event_subscriptions (
  wait_id             uuid PRIMARY KEY,
  org_id              uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
  process_instance_id uuid NOT NULL REFERENCES process_instances (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
  process_key         text NOT NULL,
  element_id          text NOT NULL,
  kind                text NOT NULL CHECK (kind IN ('message', 'signal')),
  name                text NOT NULL,
  -- Evaluated when the wait opened; null when the model gives none (matches only key-less messages).
  correlation_key     text,
  created_at          timestamptz NOT NULL
);
-- Correlation: by org, kind and name, then key; oldest first.
CREATE INDEX event_subscriptions_match_idx ON event_subscriptions (org_id, kind, name, correlation_key, created_at);
CREATE INDEX event_subscriptions_instance_idx ON event_subscriptions (process_instance_id);

CREATE TABLE buffered_messages (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id          uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
  message_name    text NOT NULL,
  correlation_key text,
  variables       jsonb NOT NULL DEFAULT '{}',
  created_at      timestamptz NOT NULL,
  expires_at      timestamptz NOT NULL
);
CREATE INDEX buffered_messages_match_idx ON buffered_messages (org_id, message_name, correlation_key, created_at);
CREATE INDEX buffered_messages_expiry_idx ON buffered_messages (expires_at);

-- Names of a compiled model's top-level start events of one kind ('message' or 'signal'), so the
-- versions a message or signal may start are found by an index instead of reading every model.
CREATE FUNCTION weft_start_event_names(model jsonb, kind text) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(array_agg(DISTINCT name) FILTER (WHERE name IS NOT NULL), '{}')
  FROM (
    SELECT coalesce(model -> 'elements' -> start_id -> 'eventDefinition' ->> 'messageName',
                    model -> 'elements' -> start_id -> 'eventDefinition' ->> 'signalName') AS name
    FROM jsonb_array_elements_text(coalesce(model -> 'startEventIds' -> kind, '[]'::jsonb)) AS start_id
  ) AS starts
$$;
CREATE INDEX process_definitions_message_starts_idx
  ON process_definitions USING gin (weft_start_event_names(model, 'message'));
CREATE INDEX process_definitions_signal_starts_idx
  ON process_definitions USING gin (weft_start_event_names(model, 'signal'));
