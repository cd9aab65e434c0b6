-- The records service's own catalogue. Record tables live in their own Postgres schemas
-- (one per org, see src/records/ddl/); these tables hold what the service needs to serve them.
CREATE SCHEMA IF NOT EXISTS records;

-- Declarative resources as last applied. `revision` rises on every change so that every instance
-- can notice a change made by another instance or by `weft records apply`.
CREATE SEQUENCE records.resource_revisions;
CREATE TABLE records.resources (
  kind text NOT NULL,
  name text NOT NULL,
  document jsonb NOT NULL,
  content_hash text NOT NULL,
  source text NOT NULL,
  revision bigint NOT NULL DEFAULT nextval('records.resource_revisions'),
  applied_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (kind, name)
);

-- Secrets generated once per deployment (e.g. the cursor signing key).
CREATE TABLE records.service_secrets (
  name text PRIMARY KEY,
  value bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- API keys: only the SHA-256 of the key is kept; the plaintext is shown once at creation.
CREATE TABLE records.api_keys (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  key_hash bytea NOT NULL UNIQUE,
  actor_id text NOT NULL,
  roles text[] NOT NULL DEFAULT '{}',
  attributes jsonb NOT NULL DEFAULT '{}',
  allowed_cidrs cidr[] NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz,
  revoked_at timestamptz
);

-- Idempotency keys, per actor, kept 24 hours. A row is inserted in the same transaction as the
-- write it protects, so a concurrent twin waits on it and then replays the stored response.
CREATE TABLE records.idempotency_keys (
  actor_id text NOT NULL,
  key text NOT NULL,
  request_hash text NOT NULL,
  response_status integer,
  response_body text,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (actor_id, key)
);
CREATE INDEX idempotency_keys_expiry ON records.idempotency_keys (expires_at);
