-- Every change to what authentication reads (users, memberships, orgs, an API key's owner, hash or
-- revocation) sends a NOTIFY on `weft_identity_changed` when it commits. Each service process keeps
-- the identities it authenticated in memory and drops them all on this notification, so a change
-- made anywhere (another instance, an operator's SQL) reaches every process's cache at commit.
-- Statement-level triggers: one notification per statement, and PostgreSQL folds identical
-- notifications of one transaction into one.
CREATE FUNCTION weft_notify_identity_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('weft_identity_changed', '');
  RETURN NULL;
END;
$$;

CREATE TRIGGER users_identity_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON users
  FOR EACH STATEMENT EXECUTE FUNCTION weft_notify_identity_changed();
CREATE TRIGGER memberships_identity_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON memberships
  FOR EACH STATEMENT EXECUTE FUNCTION weft_notify_identity_changed();
CREATE TRIGGER orgs_identity_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON orgs
  FOR EACH STATEMENT EXECUTE FUNCTION weft_notify_identity_changed();
-- `last_used_at` is written every few seconds and changes nothing authentication reads.
CREATE TRIGGER api_keys_identity_changed
  AFTER INSERT OR DELETE OR TRUNCATE OR UPDATE OF user_id, prefix, key_hash, revoked_at ON api_keys
  FOR EACH STATEMENT EXECUTE FUNCTION weft_notify_identity_changed();
