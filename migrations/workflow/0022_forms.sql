-- Camunda Forms (form-js JSON, `.form` files) deployed alongside BPMN and DMN
-- (docs/workflow/forms.md). A form's key is the `id` of its JSON; each deployment that changes a
-- form (or deploys it with a new process version) adds the next version of its key in the org.
-- `deployed_at` is the deploying transaction's now(): like process versions and DMN files, a form
-- belongs to the deployment of the rows of its org that share it (engine/store/deployment-view.ts),
-- whose id is derived from them rather than stored.
CREATE TABLE forms (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id        uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
  form_key      text NOT NULL CHECK (length(form_key) BETWEEN 1 AND 255),
  version       integer NOT NULL CHECK (version > 0),
  -- The file name it was deployed under (camunda-forms:deployment:<resource name> finds it).
  resource_name text NOT NULL CHECK (length(resource_name) BETWEEN 1 AND 1000),
  schema        jsonb NOT NULL CHECK (jsonb_typeof(schema) = 'object'),
  deployed_at   timestamptz NOT NULL DEFAULT now(),
  UNIQUE (org_id, form_key, version)
);
-- The forms of a deployment (its org and transaction time).
CREATE INDEX forms_deployment_idx ON forms (org_id, deployed_at);

-- The runtime login deploys and reads forms; it never changes or deletes them (0015 grants later
-- tables by default; this states it for a database whose tables were created by another owner).
DO $$
BEGIN
  IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'weft_workflow_app') THEN
    REVOKE ALL ON forms FROM weft_workflow_app;
    GRANT SELECT, INSERT ON forms TO weft_workflow_app;
  END IF;
END $$;
