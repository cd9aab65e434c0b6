-- 0007 granted the request role of access layer 7 (weft_records_api) every privilege on the tables
-- of the records schema. A request only needs its records, idempotency keys, and what the change
-- triggers write (those run as the table owner: SECURITY DEFINER). The audit log stays append-only
-- for it, as for weft_records_app (0002); sessions, logins, role bindings, the auth audit log and
-- resource documents are none of a request's business.
REVOKE UPDATE, DELETE, TRUNCATE ON records.audit_events FROM weft_records_api;
REVOKE ALL ON records.oidc_sessions, records.oidc_logins, records.role_bindings, records.auth_audit,
  records.resources FROM weft_records_api;
