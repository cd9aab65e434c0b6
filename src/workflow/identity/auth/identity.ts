/** Roles a user may hold inside one organisation. */
export const orgRoles = ['OrgAdmin', 'Developer', 'Operator', 'Reader', 'Worker'] as const;
/** One organisation role. */
export type OrgRole = (typeof orgRoles)[number];

/** Roles that apply everywhere. */
export const globalRoles = ['PlatformAdmin'] as const;
/** One global role. */
export type GlobalRole = (typeof globalRoles)[number];

/** An organisation the caller belongs to, with the roles held there. */
export interface OrgMembership {
  id: string;
  name: string;
  slug: string;
  roles: OrgRole[];
}

/** Who is calling: resolved once per request from a JWT or an API key. */
export interface Identity {
  userId: string;
  email: string;
  authProvider: 'internal' | 'external';
  globalRoles: GlobalRole[];
  orgs: OrgMembership[];
  /** How the caller authenticated; the key id when through an API key; `password`: HTTP Basic. */
  via: { kind: 'jwt' } | { kind: 'api-key'; keyId: string } | { kind: 'password' };
}
