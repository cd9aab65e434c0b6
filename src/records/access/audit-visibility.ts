import type { CompiledSchema } from '../schemas/compiled-schema.js';
import { quoteLiteral } from '../schemas/identifiers.js';
import type { Identity } from '../types.js';
import type { AccessControl } from './access-control.js';

/**
 * Layers 4 and 7 on audit reads: for each schema whose rows are guarded (a row filter for the
 * caller, or row security), a condition on `records.audit_events` that keeps an event only while
 * its record's current row is one the caller may read. Run in the caller's access session, so the
 * row-security policies apply to the lookup as well. Schemas whose rows are all visible add none.
 */
export function auditVisibilitySql(
  access: AccessControl,
  identity: Identity,
  schemas: CompiledSchema[],
): string[] {
  const conditions: string[] = [];
  for (const schema of schemas) {
    const rowFilter = access.view(identity, schema, { mask: false }).rowFilter;
    if (rowFilter === undefined && !access.needsSession(schema)) continue;
    const filter = rowFilter !== undefined ? ` AND ${rowFilter}` : '';
    conditions.push(
      `(records.audit_events.schema_path <> ${quoteLiteral(schema.path)} OR EXISTS (SELECT 1 FROM ${schema.table} WHERE ${schema.table}.id = records.audit_events.entity_id${filter}))`,
    );
  }
  return conditions;
}
