import Type from 'typebox';
import { Uuid } from '../common-schemas.js';

/** The state of a process instance. */
const InstanceState = Type.Enum(['running', 'completed', 'cancelled', 'incident', 'terminated']);

/** Variables in a request body: a JSON object with names of at most 255 characters. */
const JsonObject = Type.Record(Type.String({ maxLength: 255 }), Type.Unknown());

/** A process instance, as the API shows it. */
export const Instance = Type.Object({
  id: Uuid,
  counter: Type.Integer(),
  process_key: Type.String(),
  definition_id: Uuid,
  state: InstanceState,
  business_key: Type.Union([Type.String(), Type.Null()]),
  variables: Type.Record(Type.String(), Type.Unknown()),
  started_at: Type.String({ format: 'date-time' }),
  ended_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  /** Set on an instance a call activity started: the calling instance. */
  parent_instance_id: Type.Union([Uuid, Type.Null()]),
  /** Suspended by an operator: its work waits until it is resumed. */
  suspended: Type.Boolean(),
});

/** GET /api/v1/process-instances/{id} answer: the instance with its active elements and open incidents. */
export const InstanceDetail = Type.Object({
  ...Instance.properties,
  active_element_ids: Type.Array(Type.String()),
  incidents: Type.Array(
    Type.Object({
      id: Uuid,
      activity_id: Type.String(),
      kind: Type.String(),
      message: Type.String(),
      created_at: Type.String(),
    }),
  ),
  /** Live tokens: ids for a modification's `cancelToken`, scope ids for its `ancestor_scope_id`. */
  tokens: Type.Array(
    Type.Object({
      id: Type.String(),
      element_id: Type.String(),
      scope_id: Type.String(),
      local_scope_id: Type.Union([Type.String(), Type.Null()]),
      phase: Type.String(),
    }),
  ),
});

/** One entry of an instance's execution history. */
export const HistoryEntry = Type.Object({
  id: Type.Integer(),
  kind: Type.String(),
  element_id: Type.String(),
  element_type: Type.String(),
  token_id: Type.Union([Type.String(), Type.Null()]),
  at: Type.String({ format: 'date-time' }),
  data: Type.Record(Type.String(), Type.Unknown()),
});

/** A process instance id in a path. */
export const InstanceIdParams = Type.Object({ id: Uuid });

/** POST /api/v1/process-instances body. */
export const StartInstanceBody = Type.Object(
  {
    org_id: Uuid,
    process_key: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    definition_id: Type.Optional(Uuid),
    business_key: Type.Optional(Type.String({ maxLength: 255 })),
    variables: Type.Optional(JsonObject),
  },
  { additionalProperties: false },
);

/** GET /api/v1/process-instances query. */
export const ListInstancesQuery = Type.Object({
  org_id: Uuid,
  definition_id: Type.Optional(Uuid),
  process_key: Type.Optional(Type.String({ maxLength: 255 })),
  state: Type.Optional(InstanceState),
  business_key: Type.Optional(Type.String({ maxLength: 255 })),
  suspended: Type.Optional(
    Type.Boolean({ description: 'only suspended (true) or not suspended (false) instances' }),
  ),
  has_incident: Type.Optional(
    Type.Boolean({ description: 'only instances with (true) or without (false) an open incident' }),
  ),
  element_id: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'only open instances with a token at this element',
    }),
  ),
  started_after: Type.Optional(Type.String({ format: 'date-time', description: 'started at or after' })),
  started_before: Type.Optional(Type.String({ format: 'date-time', description: 'started before' })),
  limit: Type.Optional(Type.Integer({ description: 'default 100, clamped to 1..500' })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 })),
  cursor: Type.Optional(
    Type.String({
      maxLength: 200,
      description: "keyset paging: the previous page's X-Next-Cursor (not with offset)",
    }),
  ),
});

/** PATCH /api/v1/process-instances/{id}/variables body. */
export const SetVariablesBody = Type.Object({ variables: JsonObject }, { additionalProperties: false });

/** One instruction of POST /api/v1/process-instances/{id}/modification (fields by type: operations.md). */
export const ModificationInstruction = Type.Object(
  {
    type: Type.Enum(['startBeforeActivity', 'startAfterActivity', 'cancelActivity', 'cancelToken']),
    activity_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    token_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    ancestor_scope_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  },
  { additionalProperties: false },
);

/** POST /api/v1/process-instances/{id}/modification body. */
export const ModificationBody = Type.Object(
  {
    instructions: Type.Array(ModificationInstruction, { minItems: 1, maxItems: 100 }),
    variables: Type.Optional(JsonObject),
    skip_io_mappings: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

/** What suspending or resuming a version changed. */
export const DefinitionSuspension = Type.Object({
  definition_id: Uuid,
  suspended: Type.Boolean(),
  instances_changed: Type.Integer(),
});
