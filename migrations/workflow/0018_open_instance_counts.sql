-- Counts of running and incident instances per org and key (the instance gauges of /metrics) read
-- this partial index only: finished instances, which are most rows, are not in it.
CREATE INDEX process_instances_open_state_idx ON process_instances (org_id, process_key, state)
  WHERE state IN ('running', 'incident');
