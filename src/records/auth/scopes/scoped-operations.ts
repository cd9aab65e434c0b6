/**
 * The operations a token scope can be required for (`requiredScopes` of an AuthStrategy), one per
 * route of the records service:
 *
 * - `create`, `read`, `list`, `query`, `update`, `delete`: the record endpoints;
 * - `history` (history, diff, replay, snapshots), `restore`, `search`, `archive` (archive query and
 *   read), `unarchive`;
 * - `audit` (the audit log, its verification and the auth audit log), `schemas` (the schema listing
 *   and the OpenAPI document), `identity` (`/api/auth/me`), `metrics`, `admin` (role bindings).
 */
export const scopedOperations = [
  'create',
  'read',
  'list',
  'query',
  'update',
  'delete',
  'history',
  'restore',
  'search',
  'archive',
  'unarchive',
  'audit',
  'schemas',
  'identity',
  'metrics',
  'admin',
] as const;

/** One operation of the scope vocabulary. */
export type ScopedOperation = (typeof scopedOperations)[number];

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Which operation of the scope vocabulary a records route is. A route without one is checked
     * against the `'*'` entry of `requiredScopes` only.
     */
    recordsScope?: ScopedOperation;
  }
}

/** Route options fragment naming the route's scoped operation (and hiding it from the static OpenAPI). */
export function scopedRoute(operation: ScopedOperation) {
  return { schema: { hide: true }, config: { recordsScope: operation } } as const;
}
