-- Batches (docs/workflow/batches-and-migration.md): an operation (retry incidents, cancel, migrate…)
-- over a selection of instances, resolved to one item row per instance when the batch is created and
-- run asynchronously by the job executor in chunks. An item's state changes in the same transaction
-- as its operation's writes, so after a crash every item is done exactly once.
CREATE TABLE batches (
  id          uuid PRIMARY KEY,
  org_id      uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
  type        text NOT NULL,
  -- The operation's parameters (a migration's plan), checked when the batch was created.
  params      jsonb NOT NULL DEFAULT '{}',
  state       text NOT NULL DEFAULT 'running' CHECK (state IN ('running', 'completed')),
  total       integer NOT NULL CHECK (total > 0),
  created_by  text,
  created_at  timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz
);
CREATE INDEX batches_org_idx ON batches (org_id, created_at DESC, id DESC);
CREATE INDEX batches_running_idx ON batches (id) WHERE state = 'running';

CREATE TABLE batch_items (
  batch_id    uuid NOT NULL REFERENCES batches (id) ON DELETE CASCADE,
  instance_id uuid NOT NULL,
  state       text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'done', 'failed')),
  reason      text,
  finished_at timestamptz,
  PRIMARY KEY (batch_id, instance_id)
);
-- The claim: pending items, oldest batch first.
CREATE INDEX batch_items_pending_idx ON batch_items (batch_id, instance_id) WHERE state = 'pending';

-- The runtime login creates, runs and reads batches; it never deletes them (0015 grants later tables
-- by default; this states it for a database whose tables were created by another owner).
DO $$
BEGIN
  IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'weft_workflow_app') THEN
    REVOKE ALL ON batches, batch_items FROM weft_workflow_app;
    GRANT SELECT, INSERT, UPDATE ON batches, batch_items TO weft_workflow_app;
  END IF;
END $$;
