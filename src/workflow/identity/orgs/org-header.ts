import Type from 'typebox';

/** The `x-org-id` header that organisation-scoped endpoints (decisions, secrets, connectors) read. */
export const OrgHeader = Type.Object({
  'x-org-id': Type.String({ format: 'uuid', description: 'The organisation' }),
});

/** The organisation a request names in its `x-org-id` header. */
export function orgIdOf(headers: { 'x-org-id': string }): string {
  // Memberships hold lowercase UUIDs; a caller may send the header in capitals.
  return headers['x-org-id'].toLowerCase();
}
