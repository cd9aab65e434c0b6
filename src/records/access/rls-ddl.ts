import { createHash } from 'node:crypto';
import { historySchemaName, historyTable } from '../ddl/change-triggers.js';
import { qualifiedTable } from '../ddl/table-ddl.js';
import { pgSchemaName, quoteIdent, quoteLiteral } from '../schemas/identifiers.js';
import type { Operation, SchemaDefinition } from '../types.js';
import { apiRole, appRole } from './database-roles.js';
import { derivedRowStatements, onlyIfRoleExists } from './derived-rows-rls.js';
import { definerFunctionStatements } from '../ddl/definer-functions.js';
import { filtersByRole } from './row-filter.js';

const actorRoles = 'records.actor_roles()';

/**
 * A test of the caller's roles alone, as one scalar subquery: it holds no column, so Postgres
 * evaluates it once per statement (an InitPlan) and, more importantly, does not count it as a
 * filter on the rows when estimating how many match. Role tests written as bare expressions were
 * estimated at 0.5% of the rows each, so a list sorted by an indexed field looked too sparse to
 * walk its index and was read in full and sorted instead.
 */
function rolesTest(sql: string): string {
  return `(SELECT ${sql})`;
}

function roleArray(roles: readonly string[]): string {
  return `ARRAY[${roles.map(quoteLiteral).join(', ')}]::text[]`;
}

/** Layer 1 as SQL: the actor holds one of the roles listed for the operations (true when unlisted). */
function rbacSql(definition: SchemaDefinition, operations: Operation[]): string {
  const roles = definition.access.roles;
  if (roles === undefined) return 'true';
  const allowed = [...new Set(operations.flatMap((operation) => roles[operation] ?? []))];
  return allowed.length === 0 ? 'false' : rolesTest(`${actorRoles} && ${roleArray(allowed)}`);
}

/** Layer 4 as SQL for any actor, reading its roles from the session (see `rowFilterSql`). */
function rowsSql(definition: SchemaDefinition): string {
  const byRole = filtersByRole(definition.access);
  if (byRole.size === 0) return 'true';
  const branches = [
    rolesTest(`cardinality(${actorRoles}) > 0 AND NOT ${actorRoles} <@ ${roleArray([...byRole.keys()])}`),
    ...[...byRole].map(
      ([role, conditions]) =>
        `(${rolesTest(`${actorRoles} @> ${roleArray([role])}`)} AND ${conditions.map((sql) => `(${sql})`).join(' AND ')})`,
    ),
  ];
  return `(${branches.join(' OR ')})`;
}

/** True when the schema's rows are guarded by RLS, so its requests run in an access session. */
export function hasRowSecurity(definition: SchemaDefinition): boolean {
  return definition.access.rowFilter.length > 0;
}

/**
 * Layer 7: grants for the API role and row-level-security policies generated from the same rules
 * as layers 1 and 4, one policy per command (a soft delete is an UPDATE, so UPDATE admits the
 * update and delete roles). A schema without row filters gets open policies: its requests do not
 * switch role, and RBAC stays with layer 1. Re-run on every apply; every statement is idempotent.
 */
export function rlsStatements(definition: SchemaDefinition): string[] {
  const statements = policyStatements(definition);
  // The signature lets a start-up sync skip tables whose policies are current (row-security-sync.ts).
  return [
    ...statements,
    `COMMENT ON POLICY weft_select ON ${qualifiedTable(definition)} IS ${quoteLiteral(signatureOf(statements))}`,
  ];
}

/** The signature `rlsStatements` leaves on a table's `weft_select` policy. */
export function rlsSignature(definition: SchemaDefinition): string {
  return signatureOf(policyStatements(definition));
}

function signatureOf(statements: string[]): string {
  return `weft-rls ${createHash('sha256').update(statements.join(';\n')).digest('hex')}`;
}

/** Layers 1 and 4 as one SQL rule over the table's columns for `operations` ('true' when unguarded). */
export function accessRuleSql(definition: SchemaDefinition, operations: Operation[]): string {
  return hasRowSecurity(definition)
    ? `${rbacSql(definition, operations)} AND ${rowsSql(definition)}`
    : 'true';
}

function policyStatements(definition: SchemaDefinition): string[] {
  const table = qualifiedTable(definition);
  const schema = quoteIdent(pgSchemaName(definition.org));
  const rule = (operations: Operation[]) => accessRuleSql(definition, operations);
  const policy = (name: string, command: string, clause: string) => [
    `DROP POLICY IF EXISTS ${name} ON ${table}`,
    `CREATE POLICY ${name} ON ${table} FOR ${command} ${clause}`,
  ];
  // Requests insert and update records; only the archive job (as the owner) removes rows, and the
  // change triggers (SECURITY DEFINER, as the owner) write history and audit.
  const grants = (role: string) => [
    `GRANT USAGE ON SCHEMA ${schema} TO ${role}`,
    `REVOKE DELETE, TRUNCATE ON ${table} FROM ${role}`,
    `GRANT SELECT, INSERT, UPDATE ON ${table} TO ${role}`,
    ...(definition.timeMachine
      ? [
          `GRANT USAGE ON SCHEMA ${quoteIdent(historySchemaName(definition.org))} TO ${role}`,
          `REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON ${historyTable(definition)} FROM ${role}`,
          `GRANT SELECT ON ${historyTable(definition)} TO ${role}`,
        ]
      : []),
  ];
  return [
    ...grants(apiRole),
    // The app role may be missing where the migrating login could not create roles (0012).
    ...grants(appRole).map((sql) => onlyIfRoleExists(appRole, sql)),
    ...derivedRowStatements(definition, rule(['read'])),
    ...definerFunctionStatements(definition),
    `ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY`,
    ...policy('weft_select', 'SELECT', `USING (${rule(['read'])})`),
    ...policy('weft_insert', 'INSERT', `WITH CHECK (${rule(['create'])})`),
    ...policy(
      'weft_update',
      'UPDATE',
      `USING (${rule(['update', 'delete'])}) WITH CHECK (${rule(['update', 'delete'])})`,
    ),
    ...policy('weft_delete', 'DELETE', `USING (${rule(['delete'])})`),
  ];
}
