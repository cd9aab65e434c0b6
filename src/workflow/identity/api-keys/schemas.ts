import Type from 'typebox';
import { Uuid } from '../../common-schemas.js';

const Timestamp = Type.String({ format: 'date-time' });
const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);

/** Body of POST /api/v1/api-keys. */
export const CreateApiKeyBody = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 200 }) },
  { additionalProperties: false },
);

/** A new key with its plaintext, the one time it is shown. */
export const CreatedApiKey = Type.Object({
  id: Uuid,
  name: Type.String(),
  prefix: Type.String(),
  plaintext_key: Type.String({ description: 'Shown once, on creation only' }),
  created_at: Timestamp,
});

/** A key as listed: never its secret. */
export const ApiKeyItem = Type.Object({
  id: Uuid,
  name: Type.String(),
  prefix: Type.String(),
  created_at: Timestamp,
  revoked_at: NullableTimestamp,
  last_used_at: NullableTimestamp,
});

/** DELETE /api/v1/api-keys/{id} path. */
export const ApiKeyIdParams = Type.Object({ id: Uuid });
