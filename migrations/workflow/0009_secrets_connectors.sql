-- Secrets: one encrypted value per (org, name). AES-256-GCM with a fresh 12-byte nonce per value and
-- the org id and name bound as associated data; key_id names the key that encrypted it, so keys can
-- be rotated (weft workflow rotate-secrets-key re-encrypts every row under the current key).
CREATE TABLE secrets (
  org_id      uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
  name        text NOT NULL CHECK (name ~ '^[A-Za-z0-9_.-]{1,128}$'),
  key_id      text NOT NULL,
  nonce       bytea NOT NULL CHECK (octet_length(nonce) = 12),
  -- The ciphertext followed by the 16-byte authentication tag.
  ciphertext  bytea NOT NULL CHECK (octet_length(ciphertext) >= 16),
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, name)
);
CREATE INDEX secrets_key_idx ON secrets (key_id);

-- Connector jobs: a service task implemented by a weft connector (<weft:httpConnector>) waits on one
-- row, written by the engine in the same guarded statement that opened the wait and deleted by the
-- one that closed it. Every service instance claims due rows with FOR UPDATE SKIP LOCKED.
CREATE TABLE connector_jobs (
  id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id              uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
  process_instance_id uuid NOT NULL REFERENCES process_instances (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
  wait_id             uuid NOT NULL UNIQUE,
  element_id          text NOT NULL,
  -- The local name of the extension element, e.g. httpConnector.
  connector           text NOT NULL,
  due_at              timestamptz NOT NULL,
  -- Attempts left; at 0 the row is parked while its incident is open (a retry opens a new wait).
  retries             integer NOT NULL CHECK (retries >= 0),
  attempts            integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  -- Backoff of a failed attempt: min(max_backoff_ms, backoff_ms * 2^(attempts so far)).
  backoff_ms          integer NOT NULL CHECK (backoff_ms >= 0),
  max_backoff_ms      integer NOT NULL CHECK (max_backoff_ms >= 0),
  last_error          text,
  created_at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX connector_jobs_due_idx ON connector_jobs (due_at) WHERE retries > 0;
CREATE INDEX connector_jobs_instance_idx ON connector_jobs (process_instance_id);

-- Optional per-org outbound allowlist of the HTTP connector: when a row exists, only matching hosts
-- are called; entries that are IP addresses or CIDR ranges also open link-local addresses.
CREATE TABLE connector_allowlists (
  org_id      uuid PRIMARY KEY REFERENCES orgs (id) ON DELETE CASCADE,
  hosts       text[] NOT NULL,
  updated_at  timestamptz NOT NULL DEFAULT now()
);
