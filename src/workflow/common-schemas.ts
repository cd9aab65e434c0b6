import Type from 'typebox';

/** A UUID string. */
export const Uuid = Type.String({ format: 'uuid' });

/** The workflow error body, for OpenAPI. */
export const ErrorBody = Type.Object(
  {
    code: Type.String({ examples: ['U401'] }),
    message: Type.String(),
    details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { $id: 'WorkflowError', description: 'Every non-2xx response' },
);

/** Error responses every authenticated route may give. */
export const authenticatedErrors = {
  400: ErrorBody,
  401: ErrorBody,
  403: ErrorBody,
} as const;

/** The security requirement of authenticated routes, for OpenAPI. */
export const bearerSecurity = [{ bearer: [] }];

/** An organisation role name. */
export const OrgRoleName = Type.Enum(['OrgAdmin', 'Developer', 'Operator', 'Reader', 'Worker']);

/** Request schema pieces: an `org_id` path parameter. */
export const OrgIdParams = Type.Object({ org_id: Uuid });

/** Request headers of a route that takes an `Idempotency-Key` (starts, messages, signals). */
export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      pattern: '^[\\x21-\\x7e]{1,255}$',
      description:
        'Makes the request idempotent for 24 hours: a retry with the same key and request gets the stored response again (header Idempotent-Replayed: true); the same key with another request is 422',
    }),
  ),
});
