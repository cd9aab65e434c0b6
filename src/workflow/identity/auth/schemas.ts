import Type from 'typebox';
import { OrgRoleName, Uuid } from '../../common-schemas.js';

/** Body of POST /api/v1/auth/login. */
export const LoginBody = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: 320 }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
  },
  { additionalProperties: false },
);

/** A login's answer. */
export const LoginResponse = Type.Object({
  access_token: Type.String(),
  token_type: Type.Literal('Bearer'),
  expires_in: Type.Integer({ description: 'seconds' }),
});

/** Body of POST /api/v1/auth/change-password. */
export const ChangePasswordBody = Type.Object(
  {
    current_password: Type.String({ minLength: 1, maxLength: 1024 }),
    new_password: Type.String({ minLength: 8, maxLength: 1024 }),
  },
  { additionalProperties: false },
);

/** GET /api/v1/me answer: the caller with their organisations and roles. */
export const MeResponse = Type.Object({
  id: Uuid,
  email: Type.String(),
  auth_provider: Type.Enum(['internal', 'external']),
  global_roles: Type.Array(Type.String()),
  orgs: Type.Array(
    Type.Object({ id: Uuid, name: Type.String(), slug: Type.String(), roles: Type.Array(OrgRoleName) }),
  ),
});
