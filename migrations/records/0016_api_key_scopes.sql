-- Token scopes of records API keys (docs/records/authentication.md, "Scopes"): an operation whose
-- strategy lists `requiredScopes` is allowed only when the key holds every scope listed for it.
-- Existing keys hold none. The column is read and written by the service's login with the rest of
-- the row (table-level grants cover it); the request role weft_records_api still has no access to
-- records.api_keys (0007).
ALTER TABLE records.api_keys ADD COLUMN scopes text[] NOT NULL DEFAULT '{}';
