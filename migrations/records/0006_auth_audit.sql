-- The auth audit log: one row per authenticated request's decision, written in batches.
CREATE TABLE records.auth_audit (
  event_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at timestamptz NOT NULL,
  actor text,
  operation text NOT NULL,
  resource text NOT NULL,
  strategy text NOT NULL,
  outcome text NOT NULL,
  fail_mode text NOT NULL,
  request_id text NOT NULL
);
CREATE INDEX auth_audit_at ON records.auth_audit (at);
CREATE INDEX auth_audit_actor ON records.auth_audit (actor, event_id);
