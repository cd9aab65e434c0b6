-- Decisions: DMN files deployed per organisation. Every decision of a file becomes a version of its
-- decision key (the DMN decision's id); versions count 1, 2, 3… per key and org.

-- One uploaded DMN file, kept as sent: the versions it created are compiled from it.
CREATE TABLE decision_deployments (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id      uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
  xml         text NOT NULL,
  deployed_by uuid REFERENCES users (id) ON DELETE SET NULL,
  deployed_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX decision_deployments_org_id_idx ON decision_deployments (org_id);

-- A decision key of an org. Its row is the version counter (locked while a deploy assigns the next
-- version, so concurrent deploys cannot take the same number) and holds the name, which the spec
-- shares across all versions of the key.
CREATE TABLE decision_keys (
  org_id         uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
  decision_key   text NOT NULL CHECK (length(decision_key) BETWEEN 1 AND 255),
  name           text NOT NULL CHECK (length(name) BETWEEN 1 AND 500),
  latest_version integer NOT NULL CHECK (latest_version >= 0),
  PRIMARY KEY (org_id, decision_key)
);

-- One version of a decision key. content_hash fingerprints what the decision evaluates (its logic and
-- everything it requires), so an identical redeploy is recognised and returns this version.
CREATE TABLE decision_versions (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id        uuid NOT NULL,
  decision_key  text NOT NULL,
  version       integer NOT NULL CHECK (version > 0),
  deployment_id uuid NOT NULL REFERENCES decision_deployments (id) ON DELETE CASCADE,
  content_hash  text NOT NULL,
  deployed_at   timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (org_id, decision_key) REFERENCES decision_keys (org_id, decision_key) ON DELETE CASCADE,
  UNIQUE (org_id, decision_key, version)
);
CREATE INDEX decision_versions_deployment_id_idx ON decision_versions (deployment_id);
