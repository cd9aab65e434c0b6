import { RecordsErrors } from '../errors.js';
import type { CompiledSchema } from '../schemas/compiled-schema.js';
import type { AccessSection, Identity } from '../types.js';

/**
 * Layers 5 and 6, field permissions. A field listed in `fieldAccess` with a `read` list is readable
 * only by those roles (others receive null); with a `write` list it is writable only by those
 * roles (a payload naming it is 403 FIELD_WRITE_DENIED). Fields not listed, system fields, and the
 * sides a rule leaves out are open.
 */

/** Fields of `access` whose value the holder of `roles` may not read, in schema order. */
export function hiddenFields(access: AccessSection, roles: readonly string[]): string[] {
  return access.fieldAccess
    .filter((rule) => rule.read !== undefined && !rule.read.some((role) => roles.includes(role)))
    .map((rule) => rule.field);
}

/** Fields of `payload` that the holder of `roles` may not write. */
export function unwritableFields(
  access: AccessSection,
  roles: readonly string[],
  payload: Record<string, unknown>,
): string[] {
  return access.fieldAccess
    .filter(
      (rule) =>
        rule.field in payload && rule.write !== undefined && !rule.write.some((role) => roles.includes(role)),
    )
    .map((rule) => rule.field);
}

/** Layer 6: throws 403 FIELD_WRITE_DENIED naming every field of the payload the actor may not write. */
export function checkFieldWrites(
  identity: Identity,
  schema: CompiledSchema,
  payload: Record<string, unknown>,
): void {
  const denied = unwritableFields(schema.definition.access, identity.roles, payload);
  if (denied.length > 0) throw RecordsErrors.fieldWriteDenied(schema.path, denied);
}

/**
 * Layer 5 for any record read outside the list and get paths (history, diff, replay, search hits,
 * audit): a copy of `record` in which every field `identity` may not read of `schema` is null.
 * Keys the record does not have are left out (a diff's `changed` map, a partial history value).
 */
export function maskRecord<T extends Record<string, unknown>>(
  identity: Identity,
  schema: CompiledSchema,
  record: T,
): T {
  const hidden = hiddenFields(schema.definition.access, identity.roles);
  if (hidden.length === 0) return record;
  const masked: Record<string, unknown> = { ...record };
  for (const field of hidden) if (field in masked) masked[field] = null;
  return masked as T;
}
