-- Candidate users of open user tasks, beside their candidate groups, so the task lists filter by them
-- in SQL (GET /api/v1/tasks?candidate_user=…, the console's "tasks I'm a candidate user for", the
-- Camunda task query's candidateUser). Until now only the instance's wait kept them; open tasks take
-- theirs from it.
ALTER TABLE user_tasks ADD COLUMN candidate_users text[] NOT NULL DEFAULT '{}';

UPDATE user_tasks t
   SET candidate_users = ARRAY(SELECT jsonb_array_elements_text(pi.engine_state->'waits'->(t.id::text)->'candidateUsers'))
  FROM process_instances pi
 WHERE pi.id = t.process_instance_id
   AND jsonb_typeof(pi.engine_state->'waits'->(t.id::text)->'candidateUsers') = 'array';
