-- Idempotency keys of starts, messages and signals (docs/workflow/events.md, "Idempotent requests"):
-- per organisation, caller (a user or an API key) and key, kept 24 hours like the records service's.
-- A row is inserted in the same transaction as the start or correlation it protects, so a crash
-- leaves both or neither, and a concurrent twin waits on the row and then replays the response.
CREATE TABLE idempotency_keys (
  org_id uuid NOT NULL,
  actor text NOT NULL,
  key text NOT NULL,
  request_hash text NOT NULL,
  response_status integer,
  response_body text,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, actor, key)
);
CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);

-- The runtime login claims, answers and sweeps keys (0015 grants later tables by default; this
-- states it for a database whose tables were created by another owner).
DO $$
BEGIN
  IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'weft_workflow_app') THEN
    GRANT SELECT, INSERT, UPDATE, DELETE ON idempotency_keys TO weft_workflow_app;
  END IF;
END $$;
