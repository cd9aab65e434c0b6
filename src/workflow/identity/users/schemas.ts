import Type from 'typebox';
import { Uuid } from '../../common-schemas.js';

/** Body of POST /api/v1/users. */
export const CreateUserBody = Type.Object(
  {
    email: Type.String({ format: 'email', maxLength: 320 }),
    password: Type.Optional(Type.String({ minLength: 8, maxLength: 1024 })),
    auth_provider: Type.Optional(Type.Enum(['internal', 'external'])),
  },
  { additionalProperties: false },
);

/** A user as the API shows it. */
export const User = Type.Object({
  id: Uuid,
  email: Type.String(),
  auth_provider: Type.Enum(['internal', 'external']),
});
