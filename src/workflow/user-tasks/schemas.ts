import Type from 'typebox';
import { Uuid } from '../common-schemas.js';

/** An open user task, as the API shows it. */
export const UserTask = Type.Object({
  id: Uuid,
  process_instance_id: Uuid,
  activity_id: Type.String(),
  name: Type.Union([Type.String(), Type.Null()]),
  assignee: Type.Union([Type.String(), Type.Null()]),
  candidate_groups: Type.Array(Type.String()),
  candidate_users: Type.Array(Type.String()),
  variables: Type.Record(Type.String(), Type.Unknown()),
  created_at: Type.String({ format: 'date-time' }),
});

/** One open user task with its process key and form (GET /api/v1/tasks/{id}). */
export const UserTaskDetails = Type.Object({
  ...UserTask.properties,
  process_key: Type.String(),
  form_key: Type.Union([Type.String(), Type.Null()], {
    description: 'The form key or form id of the model (zeebe:formDefinition, camunda:formKey)',
  }),
  form_ref: Type.Union(
    [
      Type.Object({
        form_key: Type.String(),
        binding: Type.Union([Type.Literal('latest'), Type.Literal('deployment'), Type.Literal('version')]),
        version: Type.Union([Type.Integer(), Type.Null()]),
      }),
      Type.Null(),
    ],
    {
      description: "The model's camunda:formRef: a Camunda Form deployed alongside, and which version of it",
    },
  ),
  form: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], {
    description:
      'The @bpmn-io/form-js schema of the form: embedded in the deployed document (camunda-forms:bpmn:<id>), ' +
      'or a Camunda Form deployed alongside (camunda:formRef, camunda-forms:deployment:<name>); else null',
  }),
});

/** GET /api/v1/tasks query. */
export const ListUserTasksQuery = Type.Object({
  org_id: Uuid,
  assignee: Type.Optional(Type.String({ maxLength: 320 })),
  unassigned: Type.Optional(Type.Boolean({ description: 'only tasks without an assignee' })),
  process_instance_id: Type.Optional(Uuid),
  candidate_group: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 2000 }), {
      maxItems: 50,
      description:
        'only tasks with any of these candidate groups (exact names); repeat the parameter or separate names with commas',
    }),
  ),
  candidate_user: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 320,
      description: 'only tasks with this candidate user (compared in any case, as emails are)',
    }),
  ),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 1000 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 })),
});

/** A user task id in a path. */
export const UserTaskIdParams = Type.Object({ id: Uuid });

/** POST /api/v1/tasks/{id}/complete body; optional, as are its variables. */
export const CompleteUserTaskBody = Type.Optional(
  Type.Object(
    { variables: Type.Optional(Type.Record(Type.String({ maxLength: 255 }), Type.Unknown())) },
    { additionalProperties: false },
  ),
);
