import Type, { type TSchema } from 'typebox';

/*
 * Request bodies of Camunda 7's message and signal endpoints. Fields weft does not know are
 * ignored; optional fields may be null. Variables are checked by the codec (variables.ts).
 */

const nullable = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));
const TypedVariables = Type.Record(Type.String({ maxLength: 255 }), Type.Unknown());
const Name = Type.String({ maxLength: 255 });

/** POST /engine-rest/message body. */
export const CorrelateMessageBody = Type.Object({
  messageName: nullable(Name),
  businessKey: nullable(Type.String({ maxLength: 1000 })),
  tenantId: nullable(Name),
  withoutTenantId: nullable(Type.Boolean()),
  processInstanceId: nullable(Type.String({ maxLength: 500 })),
  correlationKeys: nullable(TypedVariables),
  localCorrelationKeys: nullable(TypedVariables),
  processVariables: nullable(TypedVariables),
  processVariablesLocal: nullable(TypedVariables),
  processVariablesToTriggeredScope: nullable(TypedVariables),
  all: nullable(Type.Boolean()),
  resultEnabled: nullable(Type.Boolean()),
  variablesInResultEnabled: nullable(Type.Boolean()),
});

/** POST /engine-rest/signal body. */
export const SignalBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255 }),
  executionId: nullable(Type.String({ maxLength: 500 })),
  variables: nullable(TypedVariables),
  tenantId: nullable(Name),
  withoutTenantId: nullable(Type.Boolean()),
});
