-- Role bindings (kind: RoleBinding), kept in step with records.resources by the apply that stores the
-- document. A revoked binding keeps its row (revoked_at) so every instance can tell revoked from
-- never granted; a deleted binding's document is removed and its row marked deleted.
CREATE TABLE records.role_bindings (
  name text PRIMARY KEY,
  actor_id text NOT NULL,
  roles text[] NOT NULL DEFAULT '{}',
  scope jsonb NOT NULL DEFAULT '{}',
  attributes jsonb NOT NULL DEFAULT '{}',
  expires_at timestamptz,
  revoked_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX role_bindings_actor ON records.role_bindings (actor_id);

-- OIDC browser sessions: only the SHA-256 of the session cookie is stored.
CREATE TABLE records.oidc_sessions (
  id_hash bytea PRIMARY KEY,
  strategy text NOT NULL,
  actor_id text NOT NULL,
  identity jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz
);
CREATE INDEX oidc_sessions_expiry ON records.oidc_sessions (expires_at);

-- OIDC logins under way: the PKCE verifier, nonce and return path of one authorization request,
-- keyed by the SHA-256 of its state; consumed once by the callback.
CREATE TABLE records.oidc_logins (
  state_hash bytea PRIMARY KEY,
  strategy text NOT NULL,
  code_verifier text NOT NULL,
  nonce text NOT NULL,
  next_path text NOT NULL,
  expires_at timestamptz NOT NULL
);
