-- Camunda 7's history time to live per definition version (issue 20): the history of an instance of
-- the version is purged once the instance ended more than this many days ago; null: the global
-- WORKFLOW_HISTORY_RETENTION_DAYS applies. Read from camunda:historyTimeToLive at deploy, changed
-- by an operator afterwards.
ALTER TABLE process_definitions
  ADD COLUMN history_time_to_live integer CHECK (history_time_to_live >= 0);

-- History housekeeping walks the ended instances of each version in order of their end, from a
-- cursor of that version (housekeeping.ts): each version has its own cutoff.
CREATE INDEX process_instances_definition_ended_idx ON process_instances (definition_id, ended_at, id)
  WHERE ended_at IS NOT NULL;

-- A decision version keeps its camunda:historyTimeToLive, shown by /engine-rest; weft stores no
-- history of decision evaluations, so nothing is purged by it.
ALTER TABLE decision_versions
  ADD COLUMN history_time_to_live integer CHECK (history_time_to_live >= 0);
