-- Timers: one row per armed timer. A catch event or boundary timer of an instance has a wait_id; a
-- timer start event of a deployed version has only a definition_id. The leader's executor claims due
-- rows with FOR UPDATE SKIP LOCKED, fires them in the same transaction, then re-arms a cycle
-- (fired_count + 1, next due_at) or deletes a one-shot timer.

CREATE TABLE timer_jobs (
  id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id              uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
  process_instance_id uuid REFERENCES process_instances (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
  definition_id       uuid REFERENCES process_definitions (id) ON DELETE CASCADE,
  wait_id             uuid,
  element_id          text NOT NULL,
  -- {"kind": "date" | "duration" | "cycle", "value": text}: FEEL already evaluated to text.
  schedule            jsonb NOT NULL CHECK (schedule ? 'kind' AND schedule ? 'value'),
  due_at              timestamptz NOT NULL,
  fired_count         integer NOT NULL DEFAULT 0 CHECK (fired_count >= 0),
  -- Attempts left for the current firing; at 0 the row is parked (an incident is open) until the
  -- engine gives it retries again. attempts counts failures since the last firing, so a successful
  -- firing restores retries to retries + attempts.
  retries             integer NOT NULL DEFAULT 3 CHECK (retries >= 0),
  attempts            integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  last_error          text,
  created_at          timestamptz NOT NULL DEFAULT now(),
  CHECK (process_instance_id IS NOT NULL OR definition_id IS NOT NULL)
);
-- The claim: due rows with attempts left, oldest first.
CREATE INDEX timer_jobs_due_idx ON timer_jobs (due_at) WHERE retries > 0;
CREATE UNIQUE INDEX timer_jobs_wait_idx ON timer_jobs (wait_id) WHERE wait_id IS NOT NULL;
CREATE INDEX timer_jobs_instance_idx ON timer_jobs (process_instance_id) WHERE process_instance_id IS NOT NULL;
CREATE INDEX timer_jobs_definition_idx ON timer_jobs (definition_id) WHERE definition_id IS NOT NULL;

-- History housekeeping walks ended instances in order of their end.
CREATE INDEX process_instances_ended_idx ON process_instances (ended_at, id) WHERE ended_at IS NOT NULL;
