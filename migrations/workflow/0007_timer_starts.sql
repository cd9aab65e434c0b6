-- Timer start events: at most one armed job per start event of a deployed version, so arming again
-- (enabling a version twice, a retried deploy) is a no-op. Their rows have no process instance.
CREATE UNIQUE INDEX timer_jobs_start_idx ON timer_jobs (definition_id, element_id)
  WHERE process_instance_id IS NULL;
