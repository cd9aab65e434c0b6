import Type, { type TSchema } from 'typebox';

/*
 * Request bodies of Camunda 7's external-task endpoints. Fields weft does not know are ignored, as
 * newer clients may send more; fields that are optional may also be null, as Camunda's Java
 * clients send them. Variables are checked by the codec (variables.ts), which names the variable.
 */

const nullable = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));
const Name = Type.String({ maxLength: 255 });
const WorkerId = Type.String({ minLength: 1, maxLength: 255 });
const TypedVariables = Type.Record(Type.String({ maxLength: 255 }), Type.Unknown());
const maxLockMs = 24 * 3600 * 1000;

/** One topic of a fetch-and-lock. */
export const FetchTopic = Type.Object({
  topicName: Type.String({ minLength: 1, maxLength: 255 }),
  lockDuration: Type.Integer({ minimum: 1, maximum: maxLockMs }),
  variables: nullable(Type.Array(Name, { maxItems: 1000 })),
  localVariables: nullable(Type.Boolean()),
  businessKey: nullable(Type.String({ maxLength: 1000 })),
  processDefinitionId: nullable(Name),
  processDefinitionIdIn: nullable(Type.Array(Name, { maxItems: 1000 })),
  processDefinitionKey: nullable(Name),
  processDefinitionKeyIn: nullable(Type.Array(Name, { maxItems: 1000 })),
  processDefinitionVersionTag: nullable(Name),
  processVariables: nullable(Type.Record(Type.String({ maxLength: 255 }), Type.Unknown())),
  tenantIdIn: nullable(Type.Array(Name, { maxItems: 1000 })),
  withoutTenantId: nullable(Type.Boolean()),
  deserializeValues: nullable(Type.Boolean()),
  includeExtensionProperties: nullable(Type.Boolean()),
});

/** POST /engine-rest/external-task/fetchAndLock body. */
export const FetchAndLockBody = Type.Object({
  workerId: WorkerId,
  maxTasks: Type.Integer({ minimum: 0 }),
  usePriority: nullable(Type.Boolean()),
  asyncResponseTimeout: nullable(Type.Integer({ minimum: 0, maximum: 1_800_000 })),
  topics: nullable(Type.Array(FetchTopic, { maxItems: 50 })),
  sorting: nullable(
    Type.Array(
      Type.Object({
        sortBy: Type.Literal('createTime'),
        sortOrder: Type.Union([Type.Literal('asc'), Type.Literal('desc')]),
      }),
      { maxItems: 1 },
    ),
  ),
});

/** POST /engine-rest/external-task/{id}/complete body. */
export const CompleteBody = Type.Object({
  workerId: WorkerId,
  variables: nullable(TypedVariables),
  localVariables: nullable(TypedVariables),
});

/** POST /engine-rest/external-task/{id}/failure body. */
export const FailureBody = Type.Object({
  workerId: WorkerId,
  errorMessage: nullable(Type.String()),
  errorDetails: nullable(Type.String()),
  retries: nullable(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
  retryTimeout: nullable(Type.Integer({ minimum: 0, maximum: 30 * 24 * 3600 * 1000 })),
  variables: nullable(TypedVariables),
  localVariables: nullable(TypedVariables),
});

/** POST /engine-rest/external-task/{id}/bpmnError body. */
export const BpmnErrorBody = Type.Object({
  workerId: WorkerId,
  errorCode: Type.String({ minLength: 1, maxLength: 255 }),
  errorMessage: nullable(Type.String()),
  variables: nullable(TypedVariables),
});

/** POST /engine-rest/external-task/{id}/extendLock body. */
export const ExtendLockBody = Type.Object({
  workerId: WorkerId,
  newDuration: Type.Integer({ minimum: 1, maximum: maxLockMs }),
});

/** An external task id in a path: any text, since Camunda's ids are; one that is not weft's is unknown. */
export const TaskIdParams = Type.Object({ id: Type.String({ maxLength: 500 }) });
