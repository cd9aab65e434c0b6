-- Erasure of one record's data (docs/records/archive.md, "Erasure"). An erased audit event keeps
-- its place in the chain (event id, hashes, operation, version, actor, time) but loses its values;
-- `erased_at` says so, and verify then checks its links but not its content. An ERASE event,
-- hashed like any other, records the erasure in the chain.
ALTER TABLE records.audit_events ADD COLUMN erased_at timestamptz;

-- An erasure in progress: written before anything is removed and deleted in the transaction that
-- finishes it, so an erasure a crash interrupted is finished by the archive job.
CREATE TABLE records.pending_erasures (
  schema_path text NOT NULL,
  record_id uuid NOT NULL,
  actor text NOT NULL,
  reason text NOT NULL,
  requested_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (schema_path, record_id)
);
REVOKE ALL ON records.pending_erasures FROM PUBLIC;
