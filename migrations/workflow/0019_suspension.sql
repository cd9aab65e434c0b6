-- Suspension of process instances and definition versions (issue 18, operations on running instances).
-- A suspended instance's work waits: the fetch-and-lock, timer and connector claims skip it, message
-- and signal correlation does not find it, and the engine's guarded update refuses every event but
-- the operator's (cancel, variables) while the flag is set. A suspended version starts no instance.
ALTER TABLE process_instances ADD COLUMN suspended boolean NOT NULL DEFAULT false;
ALTER TABLE process_definitions ADD COLUMN suspended boolean NOT NULL DEFAULT false;

-- The claims look up suspended instances by id; only the few suspended rows are in this index.
CREATE INDEX process_instances_suspended_idx ON process_instances (id) WHERE suspended;
