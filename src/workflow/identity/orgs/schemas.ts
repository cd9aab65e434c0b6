import Type from 'typebox';
import { OrgRoleName, Uuid } from '../../common-schemas.js';

/** An organisation as the API shows it. */
export const Org = Type.Object({ id: Uuid, name: Type.String(), slug: Type.String() });

/** Body of POST /api/v1/orgs. */
export const CreateOrgBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    slug: Type.String({
      pattern: '^[a-z0-9][a-z0-9-]{0,62}$',
      description: 'lowercase letters, digits and dashes',
    }),
  },
  { additionalProperties: false },
);

/** A member of an organisation with their roles. */
export const Membership = Type.Object({
  org_id: Uuid,
  user_id: Uuid,
  email: Type.String(),
  roles: Type.Array(OrgRoleName),
});

/** Body of PUT /api/v1/orgs/{org_id}/members/{user_id}. */
export const MembershipBody = Type.Object(
  { roles: Type.Array(OrgRoleName, { minItems: 1, maxItems: 5 }) },
  { additionalProperties: false },
);

/** Path of the member endpoints. */
export const MemberParams = Type.Object({ org_id: Uuid, user_id: Uuid });

/** A process group as the API shows it. */
export const ProcessGroup = Type.Object({ id: Uuid, name: Type.String() });

/** Body of POST /api/v1/orgs/{org_id}/process-groups. */
export const ProcessGroupBody = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 200 }) },
  { additionalProperties: false },
);
