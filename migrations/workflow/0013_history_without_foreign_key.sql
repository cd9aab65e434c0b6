-- History rows are an append-only log written only by an instance's own guarded engine statement,
-- for the instance that statement wrote: a foreign key adds nothing to that, but its deferred check
-- ran one lookup and row lock per history row at every commit (eleven per instance for the
-- simplest service-task process). Instances are never deleted (housekeeping deletes the history of
-- old ones, by instance id), so no row can lose its instance. Camunda's history tables carry no
-- foreign keys to runtime tables either.
ALTER TABLE process_history DROP CONSTRAINT IF EXISTS process_history_process_instance_id_fkey;
