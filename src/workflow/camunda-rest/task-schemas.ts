import Type, { type TSchema } from 'typebox';

/*
 * Request bodies of Camunda 7's task endpoints. Fields weft does not know are ignored; optional
 * fields may be null. Variables are checked by the codec (variables.ts).
 */

const nullable = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));
const TypedVariables = Type.Record(Type.String({ maxLength: 255 }), Type.Unknown());

/** A task id in a path: any text; one that is not weft's is unknown. */
export const TaskIdParams = Type.Object({ id: Type.String({ maxLength: 500 }) });

/** POST /task/{id}/claim and /assignee body: the user (null or empty unclaims). */
export const UserIdBody = Type.Object({ userId: nullable(Type.String({ maxLength: 320 })) });

/** POST /task/{id}/complete body (optional). */
export const CompleteTaskBody = Type.Optional(
  Type.Union([
    Type.Object({
      variables: nullable(TypedVariables),
      withVariablesInReturn: nullable(Type.Boolean()),
    }),
    Type.Null(),
  ]),
);
