-- Continuation jobs: a token stopped at a Camunda 7 asynchronous continuation (camunda:asyncBefore or
-- asyncAfter) waits on one row, written by the engine in the same guarded statement that opened the
-- wait and deleted by the one that closed it. Every service instance claims due rows with
-- FOR UPDATE SKIP LOCKED and goes on with the instance in the row's transaction.
CREATE TABLE continuation_jobs (
  id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id              uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
  process_instance_id uuid NOT NULL REFERENCES process_instances (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
  wait_id             uuid NOT NULL UNIQUE,
  element_id          text NOT NULL,
  due_at              timestamptz NOT NULL,
  -- Attempts left, the next one included: 1 + the retries of camunda:failedJobRetryTimeCycle at first.
  -- At 0 the row is parked while its incident is open (a retry opens a new wait).
  retries             integer NOT NULL CHECK (retries >= 0),
  attempts            integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  -- The wait before retry n is intervals_ms[n], the last one repeating.
  intervals_ms        integer[] NOT NULL CHECK (cardinality(intervals_ms) > 0),
  last_error          text,
  created_at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX continuation_jobs_due_idx ON continuation_jobs (due_at) WHERE retries > 0;
CREATE INDEX continuation_jobs_instance_idx ON continuation_jobs (process_instance_id);

-- The runtime login writes and deletes these rows (0015 grants later tables by default; this states
-- it for a database whose tables were created by another owner).
DO $$
BEGIN
  IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'weft_workflow_app') THEN
    GRANT SELECT, INSERT, UPDATE, DELETE ON continuation_jobs TO weft_workflow_app;
  END IF;
END $$;
