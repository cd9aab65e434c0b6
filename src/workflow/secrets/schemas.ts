import Type from 'typebox';

/** A secret name: what `{{secret:<name>}}` placeholders refer to. */
export const SecretName = Type.String({
  pattern: '^[A-Za-z0-9_.-]{1,128}$',
  description: 'letters, digits, `_`, `.` and `-`; at most 128 characters',
});

/** POST /api/v1/secrets body. */
export const PutSecretBody = Type.Object(
  {
    name: SecretName,
    value: Type.String({ minLength: 1, maxLength: 65_536, description: 'write-only; never returned' }),
  },
  { additionalProperties: false },
);

/** A secret as the API shows it: never its value. */
export const SecretSummary = Type.Object({
  name: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

/** DELETE /api/v1/secrets/{name} path. */
export const SecretNameParams = Type.Object({ name: SecretName });
