import Type from 'typebox';
import { RecordsErrors } from '../errors.js';
import { partProblems } from '../http/route-schema.js';

/** `POST /api/platform/audit/verify`: `{schema, id}`, their values checked by the route. */
export const VerifyBody = Type.Object(
  { schema: Type.Optional(Type.Unknown()), id: Type.Optional(Type.Unknown()) },
  { additionalProperties: false },
);

/** 400 VALIDATION_ERROR naming one field of an audit request. */
export function auditProblem(field: string, reason: string) {
  return RecordsErrors.validation(`Invalid ${field}`, [{ field, reason }]);
}

/** The answer of the verify route to a body its schema refuses. */
export const verifyProblems = partProblems({
  body: {
    notObject: () => auditProblem('(body)', 'must be {schema, id}'),
    unknownMember: (name) => auditProblem(name.slice(0, 100), 'is not a property; send {schema, id}'),
  },
});
