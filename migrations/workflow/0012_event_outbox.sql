-- Thrown messages and signals (message end/intermediate throw events, send tasks, signal throws):
-- one outbox row per thrown event, written by the thrower's own guarded engine write, so the event
-- exists exactly when the write that threw it committed. Every service instance delivers due rows
-- (claimed with FOR UPDATE SKIP LOCKED) and deletes each in the transaction of its delivery, so
-- each thrown event is delivered exactly once; the thrower's process also delivers its own rows
-- right after its commit, through the same claim.
CREATE TABLE event_outbox (
  id                  uuid PRIMARY KEY,
  org_id              uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
  process_instance_id uuid NOT NULL REFERENCES process_instances (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
  element_id          text NOT NULL,
  kind                text NOT NULL CHECK (kind IN ('message', 'signal')),
  name                text NOT NULL,
  -- The message's correlation key, evaluated when it was thrown; always null for a signal.
  correlation_key     text,
  variables           jsonb NOT NULL DEFAULT '{}',
  due_at              timestamptz NOT NULL,
  -- Attempts left; at 0 the row is parked with its last_error (logged) and no longer claimed.
  retries             integer NOT NULL CHECK (retries >= 0),
  attempts            integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  last_error          text,
  created_at          timestamptz NOT NULL
);
CREATE INDEX event_outbox_due_idx ON event_outbox (due_at) WHERE retries > 0;
CREATE INDEX event_outbox_instance_idx ON event_outbox (process_instance_id);

-- Message starts with a correlation key (as in Zeebe): while an instance started by a message of a
-- correlation key is active, another message of the same key does not start a second instance of
-- the same process key. The row names the last instance a key started; the unique key serialises
-- racing starts, and a row whose instance ended is taken over by the next start.
CREATE TABLE message_start_keys (
  org_id              uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
  process_key         text NOT NULL,
  correlation_key     text NOT NULL,
  process_instance_id uuid NOT NULL REFERENCES process_instances (id) ON DELETE CASCADE,
  PRIMARY KEY (org_id, process_key, correlation_key)
);
CREATE INDEX message_start_keys_instance_idx ON message_start_keys (process_instance_id);

-- Housekeeping deletes expired buffered messages through buffered_messages_expiry_idx (0005).
