import { createHash } from 'node:crypto';
import { historyTable } from '../ddl/change-triggers.js';
import { qualifiedTable } from '../ddl/table-ddl.js';
import { quoteIdent, quoteLiteral } from '../schemas/identifiers.js';
import type { SchemaDefinition } from '../types.js';
import { apiRole, appRole } from './database-roles.js';

/**
 * Layer 7 on the rows that copy or describe a schema's records outside its table: history,
 * audit events, cold storage and snapshots. The database holds the same rule as the API, so a
 * request role that reads these tables directly sees no more than the API would show it:
 *
 * - history and audit events: visible while the record they describe is visible in its table
 *   (the lookup runs under that table's own policies), as the API's time machine and audit do;
 * - cold storage: the read rule evaluated on the archived copy (`jsonb_populate_record` gives it
 *   the table's columns, so the schema's row-filter SQL applies unchanged);
 * - snapshots: the read rule on the snapshot table, which has the record table's columns.
 *
 * Policies on the shared tables (`records.audit_events`, `records_archive.*`) are one per schema,
 * named after its path; Postgres ORs permissive policies, so each schema's rows follow its rule.
 * Only the owner (the migrating login, which runs the triggers and the archive and snapshot jobs)
 * reads past them; the request and application roles never own these tables.
 */

/** A statement that runs only where `role` exists (roles are optional where none can be created). */
export function onlyIfRoleExists(role: string, sql: string): string {
  return `DO $weft$ BEGIN IF EXISTS (SELECT FROM pg_roles WHERE rolname = ${quoteLiteral(role)}) THEN EXECUTE ${quoteLiteral(sql)}; END IF; END $weft$`;
}

/** The per-schema policy name on a shared table. */
function sharedPolicyName(definition: SchemaDefinition): string {
  return quoteIdent(`weft_${createHash('sha256').update(definition.path).digest('hex').slice(0, 24)}`);
}

function policy(name: string, table: string, using: string): string[] {
  return [
    `DROP POLICY IF EXISTS ${name} ON ${table}`,
    `CREATE POLICY ${name} ON ${table} FOR SELECT USING (${using})`,
  ];
}

/** Row security of the history, audit and cold-storage rows of a schema, given its read rule. */
export function derivedRowStatements(definition: SchemaDefinition, readRule: string): string[] {
  const table = qualifiedTable(definition);
  const path = quoteLiteral(definition.path);
  const name = sharedPolicyName(definition);
  const archivedCopy = (column: string) =>
    readRule === 'true'
      ? 'true'
      : `EXISTS (SELECT 1 FROM jsonb_populate_record(NULL::${table}, ${column}) AS copy WHERE ${readRule})`;
  // A schema whose rows are all readable keeps the events of records no longer in its table
  // (archived) readable too, as the API does.
  const recordVisible = (column: string) =>
    readRule === 'true' ? 'true' : `EXISTS (SELECT 1 FROM ${table} AS r WHERE r.id = ${column})`;
  return [
    ...(definition.timeMachine
      ? [
          `ALTER TABLE ${historyTable(definition)} ENABLE ROW LEVEL SECURITY`,
          ...policy('weft_select', historyTable(definition), recordVisible('record_id')),
        ]
      : []),
    ...policy(name, 'records.audit_events', `schema_path = ${path} AND ${recordVisible('entity_id')}`),
    ...policy(name, 'records_archive.records', `schema_path = ${path} AND ${archivedCopy('record')}`),
    ...policy(name, 'records_archive.history', `schema_path = ${path} AND ${archivedCopy('state')}`),
  ];
}

/** Grants and row security of one snapshot table (`LIKE` the schema's table, so the same columns). */
export function snapshotRowStatements(snapshot: string, readRule: string): string[] {
  return [
    `GRANT SELECT ON ${snapshot} TO ${apiRole}`,
    onlyIfRoleExists(appRole, `GRANT SELECT ON ${snapshot} TO ${appRole}`),
    `ALTER TABLE ${snapshot} ENABLE ROW LEVEL SECURITY`,
    ...policy('weft_select', snapshot, readRule),
  ];
}
