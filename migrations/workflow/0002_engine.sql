-- The BPMN engine: deployed definitions, instances with their engine state, and the work handed
-- out (external tasks, user tasks), incidents and history.

CREATE TABLE process_definitions (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id           uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
  process_group_id uuid NOT NULL REFERENCES process_groups (id),
  process_key      text NOT NULL,
  -- Versions count 1, 2, 3… per (org, key); drafts have none and never start anything.
  version          integer CHECK (version > 0),
  draft            boolean NOT NULL DEFAULT false,
  name             text NOT NULL,
  disabled         boolean NOT NULL DEFAULT false,
  xml              text NOT NULL,
  content_hash     text NOT NULL,
  model            jsonb NOT NULL,
  deployed_at      timestamptz NOT NULL DEFAULT now(),
  CHECK ((draft AND version IS NULL) OR (NOT draft AND version IS NOT NULL)),
  CHECK (NOT (draft AND disabled)),
  UNIQUE (org_id, process_key, version)
);
CREATE INDEX process_definitions_key_idx ON process_definitions (org_id, process_key, version DESC);

-- One row per (org, key): serialises version numbering and hands out gap-free instance counters.
CREATE TABLE process_keys (
  org_id       uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
  process_key  text NOT NULL,
  last_version integer NOT NULL DEFAULT 0,
  last_counter bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (org_id, process_key)
);

CREATE TABLE process_instances (
  id            uuid PRIMARY KEY,
  org_id        uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
  definition_id uuid NOT NULL REFERENCES process_definitions (id),
  process_key   text NOT NULL,
  counter       bigint NOT NULL,
  business_key  text,
  state         text NOT NULL CHECK (state IN ('running', 'completed', 'cancelled', 'incident', 'terminated')),
  variables     jsonb NOT NULL DEFAULT '{}',
  engine_state  jsonb NOT NULL,
  -- Bumped by every write: engine calls read without locking and write only if it is unchanged.
  revision      integer NOT NULL DEFAULT 0,
  started_at    timestamptz NOT NULL DEFAULT now(),
  ended_at      timestamptz,
  UNIQUE (org_id, process_key, counter)
);
CREATE INDEX process_instances_org_started_idx ON process_instances (org_id, started_at DESC, id DESC);
CREATE INDEX process_instances_definition_idx ON process_instances (definition_id);
CREATE INDEX process_instances_business_key_idx ON process_instances (org_id, business_key) WHERE business_key IS NOT NULL;

-- Rows below reference their instance with a deferred foreign key: a start writes them before the
-- instance row, whose counter is taken last so the key's counter row stays locked only until commit.
CREATE TABLE external_tasks (
  id                  uuid PRIMARY KEY,
  org_id              uuid NOT NULL,
  process_instance_id uuid NOT NULL REFERENCES process_instances (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
  activity_id         text NOT NULL,
  topic               text NOT NULL,
  variables           jsonb NOT NULL DEFAULT '{}',
  retries             integer NOT NULL CHECK (retries >= 0),
  worker_id           text,
  lock_expires_at     timestamptz,
  -- A failed attempt with retries left becomes fetchable again at due_at.
  due_at              timestamptz NOT NULL DEFAULT now(),
  error_message       text,
  created_at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX external_tasks_fetch_idx ON external_tasks (topic, due_at);
CREATE INDEX external_tasks_instance_idx ON external_tasks (process_instance_id);

CREATE TABLE user_tasks (
  id                  uuid PRIMARY KEY,
  org_id              uuid NOT NULL,
  process_instance_id uuid NOT NULL REFERENCES process_instances (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
  activity_id         text NOT NULL,
  name                text,
  assignee            text,
  candidate_groups    text[] NOT NULL DEFAULT '{}',
  variables           jsonb NOT NULL DEFAULT '{}',
  created_at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX user_tasks_org_idx ON user_tasks (org_id, created_at);
CREATE INDEX user_tasks_instance_idx ON user_tasks (process_instance_id);

CREATE TABLE incidents (
  id                  uuid PRIMARY KEY,
  org_id              uuid NOT NULL,
  process_instance_id uuid NOT NULL REFERENCES process_instances (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
  activity_id         text NOT NULL,
  kind                text NOT NULL,
  wait_id             uuid,
  message             text NOT NULL,
  created_at          timestamptz NOT NULL DEFAULT now(),
  resolved_at         timestamptz
);
CREATE INDEX incidents_instance_idx ON incidents (process_instance_id);
CREATE INDEX incidents_open_idx ON incidents (org_id) WHERE resolved_at IS NULL;

CREATE TABLE process_history (
  id                  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  process_instance_id uuid NOT NULL REFERENCES process_instances (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
  kind                text NOT NULL,
  element_id          text NOT NULL,
  element_type        text NOT NULL,
  token_id            text,
  at                  timestamptz NOT NULL,
  data                jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX process_history_instance_idx ON process_history (process_instance_id, id);
