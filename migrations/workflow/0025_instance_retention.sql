-- Instance retention (WORKFLOW_INSTANCE_RETENTION_DAYS, issue 21) deletes finished instances. It
-- keeps an instance one of whose children still runs, and deleting an instance sets its children's
-- parent_instance_id to null (ON DELETE SET NULL): both look instances up by their parent, which
-- without this index is a scan of every instance per deleted row.
CREATE INDEX process_instances_parent_idx ON process_instances (parent_instance_id)
  WHERE parent_instance_id IS NOT NULL;
