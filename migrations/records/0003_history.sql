-- Time machine support (docs/records/time-machine.md). Each schema with `timeMachine: true` has its
-- own history table, `hist_<org>.<table>`, created with the record table by src/records/ddl/.

-- The fields whose values differ between two record states, as {old, new} objects. System
-- bookkeeping fields that change on every write (updated_at, updated_by, version) are left out.
CREATE FUNCTION records.changed_fields(old_state jsonb, new_state jsonb, OUT old_value jsonb, OUT new_value jsonb)
LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(jsonb_object_agg(key, old_state -> key), '{}'::jsonb),
         coalesce(jsonb_object_agg(key, new_state -> key), '{}'::jsonb)
  FROM (SELECT key FROM jsonb_object_keys(old_state || new_state) AS k(key)
        WHERE key NOT IN ('updated_at', 'updated_by', 'version')
          AND (old_state -> key) IS DISTINCT FROM (new_state -> key)) AS changed
$$;

-- Snapshots: a schema's state at an instant, materialised by a job into its own table.
CREATE SCHEMA IF NOT EXISTS records_snapshots;
CREATE TABLE records.snapshots (
  snapshot_id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  schema_path text NOT NULL,
  at timestamptz NOT NULL,
  reason text NOT NULL,
  requested_by text NOT NULL,
  status text NOT NULL DEFAULT 'in_progress' CHECK (status IN ('in_progress', 'completed', 'failed')),
  row_count bigint,
  error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  completed_at timestamptz
);
CREATE INDEX snapshots_pending ON records.snapshots (created_at) WHERE status = 'in_progress';
