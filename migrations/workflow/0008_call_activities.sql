-- Call activities: a called (child) instance names the instance and the call activity wait that
-- started it. The wait's id is unique, so a retried start can never create a second child.
ALTER TABLE process_instances
  ADD COLUMN parent_instance_id uuid REFERENCES process_instances (id) ON DELETE SET NULL,
  ADD COLUMN parent_wait_id uuid;
CREATE UNIQUE INDEX process_instances_parent_wait_idx ON process_instances (parent_wait_id)
  WHERE parent_wait_id IS NOT NULL;
