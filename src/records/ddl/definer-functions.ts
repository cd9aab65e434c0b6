import { createHash } from 'node:crypto';
import { onlyIfRoleExists } from '../access/derived-rows-rls.js';
import { apiRole, appRole } from '../access/database-roles.js';
import { pgSchemaName, quoteIdent, quoteLiteral } from '../schemas/identifiers.js';
import type { SchemaDefinition } from '../types.js';
import { historyTable } from './change-triggers.js';
import { qualifiedTable, tableName } from './table-ddl.js';

/**
 * The two things cold storage needs past the request roles' own privileges, each as a function
 * of the schema version that runs as the owner (SECURITY DEFINER) and does only that:
 *
 * - whether a record id has a row in hot storage, whichever rows the caller's policies show
 *   (a record is archived only while it has none; the answer reveals no content);
 * - bringing an archived record's history back into its history table on unarchive, for a record
 *   that is not in hot storage (history is otherwise written by the owner's triggers only).
 */

function functionName(definition: SchemaDefinition, kind: string): string {
  const digest = createHash('sha256').update(tableName(definition)).digest('hex').slice(0, 24);
  return `${quoteIdent(pgSchemaName(definition.org))}.${quoteIdent(`${kind}_${digest}`)}`;
}

/** The quoted name of a schema version's hot-storage test, `(uuid) → boolean`. */
export function inHotStorageFunction(definition: SchemaDefinition): string {
  return functionName(definition, 'in_hot_storage');
}

/** The quoted name of a schema version's unarchive-history function, `(uuid) → void`. */
export function unarchiveHistoryFunction(definition: SchemaDefinition): string {
  return functionName(definition, 'unarchive_history');
}

function callableByRequests(signature: string): string[] {
  return [
    `REVOKE ALL ON FUNCTION ${signature} FROM PUBLIC`,
    `GRANT EXECUTE ON FUNCTION ${signature} TO ${apiRole}`,
    onlyIfRoleExists(appRole, `GRANT EXECUTE ON FUNCTION ${signature} TO ${appRole}`),
  ];
}

/** The functions of a schema version and their grants. */
export function definerFunctionStatements(definition: SchemaDefinition): string[] {
  const table = qualifiedTable(definition);
  const definer = 'SECURITY DEFINER SET search_path = pg_catalog, pg_temp';
  const hot = `${inHotStorageFunction(definition)}(uuid)`;
  const statements = [
    `CREATE OR REPLACE FUNCTION ${hot} RETURNS boolean LANGUAGE sql STABLE ${definer} AS $weft$
SELECT EXISTS (SELECT 1 FROM ${table} WHERE id = $1)
$weft$`,
    ...callableByRequests(hot),
  ];
  if (!definition.timeMachine) return statements;
  const unarchive = `${unarchiveHistoryFunction(definition)}(uuid)`;
  const columns = `event_id, record_id, "timestamp", actor, operation, old_value, new_value, state, reason`;
  return [
    ...statements,
    `CREATE OR REPLACE FUNCTION ${unarchive} RETURNS void LANGUAGE sql ${definer} AS $weft$
INSERT INTO ${historyTable(definition)} (${columns})
SELECT ${columns} FROM records_archive.history
WHERE schema_path = ${quoteLiteral(definition.path)} AND record_id = $1
  AND NOT EXISTS (SELECT 1 FROM ${table} WHERE id = $1)
ORDER BY event_id
ON CONFLICT (event_id) DO NOTHING
$weft$`,
    ...callableByRequests(unarchive),
  ];
}
