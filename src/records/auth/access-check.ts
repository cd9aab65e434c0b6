import { RecordsErrors } from '../errors.js';
import type { CompiledSchema } from '../schemas/compiled-schema.js';
import type { Identity, Operation } from '../types.js';

/**
 * The access-check stage every record request passes before any data is touched (layer 1, route
 * RBAC). `AccessControl` (src/records/access/) implements it with the other layers behind it.
 */
export interface AccessCheck {
  /** Throws when `identity` may not perform `operation` on `schema`. */
  authorize(identity: Identity, schema: CompiledSchema, operation: Operation): void;
}

/**
 * Layer 1, route RBAC: with `spec.access.roles`, the caller needs one of the roles listed for the
 * operation (an operation not listed is denied); a schema without `access.roles` is open to every
 * authenticated actor.
 */
export const roleAccessCheck: AccessCheck = {
  authorize(identity, schema, operation) {
    const roles = schema.definition.access.roles;
    if (roles === undefined) return;
    const allowed = roles[operation] ?? [];
    if (!identity.roles.some((role) => allowed.includes(role)))
      throw RecordsErrors.rbacDenied(operation, schema.path);
  },
};
