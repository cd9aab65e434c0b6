-- API key operations (`weft records api-key list|revoke|rotate`, /api/platform/api-keys): who made
-- and who revoked a key, an optional label to tell keys apart in a list, and the key that replaced
-- a rotated one. A rotated key keeps working until `expires_at` (the rotation's grace period) or is
-- revoked at once (`revoked_at`). No new table: records.api_keys stays readable and writable by the
-- service login only (which serves the key lookups and the admin endpoints); weft_records_api, the
-- role requests switch to, has no privilege on it (0007).
ALTER TABLE records.api_keys
  ADD COLUMN label text,
  ADD COLUMN created_by text,
  ADD COLUMN revoked_by text,
  ADD COLUMN replaced_by uuid REFERENCES records.api_keys (id);
CREATE INDEX api_keys_actor ON records.api_keys (actor_id, created_at);
REVOKE ALL ON records.api_keys FROM weft_records_api;
