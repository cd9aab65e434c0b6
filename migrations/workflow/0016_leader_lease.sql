-- The timer leadership is a lease the database enforces (docs/workflow/timers.md, "Leadership"):
-- one row per leadership, held by `holder` until `expires_at` (the database's clock, never a node's)
-- and renewed by the holder's heartbeat. Every takeover increments `epoch`; every write of the
-- leader's loops checks, in its own transaction, that the row still names its holder and epoch and
-- has not expired, so a leader that was frozen (SIGSTOP, a long pause) and wakes after another took
-- over commits nothing. `holder_pid` is the backend of the holder's election connection: when that
-- backend is gone (the holder crashed), a follower may take over before the lease expires, which is
-- safe because the takeover's new epoch fences the old holder at once.
CREATE TABLE leader_lease (
  name text PRIMARY KEY,
  holder text NOT NULL,
  epoch bigint NOT NULL,
  expires_at timestamptz NOT NULL,
  holder_pid integer,
  acquired_at timestamptz NOT NULL
);

-- Raises SQLSTATE WL001 unless `lease_holder` holds `lease_name` at `lease_epoch` and the lease has
-- not expired by the database's clock (clock_timestamp(), not the transaction's start). With `hold`
-- it also takes a share lock on the row until the transaction ends: run just before COMMIT, in the
-- same message, a takeover (an UPDATE of the row) cannot fall between the check and the commit.
CREATE FUNCTION weft_assert_leader_lease(lease_name text, lease_holder text, lease_epoch bigint, hold boolean)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF hold THEN
    PERFORM 1 FROM leader_lease
      WHERE name = lease_name AND holder = lease_holder AND epoch = lease_epoch
        AND expires_at > clock_timestamp()
      FOR SHARE;
  ELSE
    PERFORM 1 FROM leader_lease
      WHERE name = lease_name AND holder = lease_holder AND epoch = lease_epoch
        AND expires_at > clock_timestamp();
  END IF;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'the leader lease % is no longer held at epoch %', lease_name, lease_epoch
      USING ERRCODE = 'WL001';
  END IF;
END $$;

DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'weft_workflow_app') THEN
    RETURN;
  END IF;
  -- Acquire, renew and release are UPDATEs (FOR SHARE needs UPDATE too); the rows are never deleted.
  GRANT SELECT, INSERT, UPDATE ON leader_lease TO weft_workflow_app;
  REVOKE DELETE, TRUNCATE ON leader_lease FROM weft_workflow_app;
  GRANT EXECUTE ON FUNCTION weft_assert_leader_lease(text, text, bigint, boolean) TO weft_workflow_app;
END $$;
