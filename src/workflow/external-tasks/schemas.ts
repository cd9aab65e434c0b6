import Type from 'typebox';
import { Uuid } from '../common-schemas.js';

const WorkerId = Type.String({ minLength: 1, maxLength: 255 });
// Bodies are parsed JSON, so their values are JSON values: the engine's Variables type.
const Variables = Type.Record(Type.String({ maxLength: 255 }), Type.Unknown());
const maxLockMs = 24 * 3600 * 1000;

/** An external task id in a path. */
export const TaskParams = Type.Object({ id: Uuid });

/** A task as fetch-and-lock hands it to a worker. */
export const LockedTask = Type.Object({
  id: Uuid,
  topic_name: Type.String(),
  process_instance_id: Uuid,
  activity_id: Type.String(),
  variables: Type.Record(Type.String(), Type.Unknown()),
  retries: Type.Integer(),
  lock_expires_at: Type.String({ format: 'date-time' }),
  org_id: Uuid,
});

/** POST /api/v1/external-tasks/fetch-and-lock body. */
export const FetchAndLockBody = Type.Object(
  {
    worker_id: WorkerId,
    max_tasks: Type.Integer({ minimum: 1, maximum: 100 }),
    topics: Type.Array(
      Type.Object(
        {
          topic_name: Type.String({ minLength: 1, maxLength: 255 }),
          lock_duration_ms: Type.Integer({ minimum: 1, maximum: maxLockMs }),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 50 },
    ),
    async_response_timeout_ms: Type.Optional(Type.Integer({ minimum: 0, maximum: 300_000 })),
  },
  { additionalProperties: false },
);

/** POST /api/v1/external-tasks/{id}/complete body. */
export const CompleteBody = Type.Object(
  { worker_id: WorkerId, variables: Type.Optional(Variables) },
  { additionalProperties: false },
);

/** POST /api/v1/external-tasks/{id}/failure body. */
export const FailureBody = Type.Object(
  {
    worker_id: WorkerId,
    error_message: Type.String({ maxLength: 10_000 }),
    retries: Type.Integer({ minimum: 0, maximum: 1000 }),
    retry_timeout_ms: Type.Integer({ minimum: 0, maximum: 30 * 24 * 3600 * 1000 }),
  },
  { additionalProperties: false },
);

/** POST /api/v1/external-tasks/{id}/bpmn-error body. */
export const BpmnErrorBody = Type.Object(
  {
    worker_id: WorkerId,
    error_code: Type.String({ minLength: 1, maxLength: 255 }),
    variables: Type.Optional(Variables),
  },
  { additionalProperties: false },
);

/** PATCH /api/v1/external-tasks/{id}/lock body. */
export const ExtendLockBody = Type.Object(
  { worker_id: WorkerId, new_duration_ms: Type.Integer({ minimum: 1, maximum: maxLockMs }) },
  { additionalProperties: false },
);
