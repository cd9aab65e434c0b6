import { withTransaction, type Pool } from '../../platform/database/pool.js';
import type { Logger } from '../../platform/logging/logger.js';
import { qualifiedTable } from '../ddl/table-ddl.js';
import type { CompiledSchema } from '../schemas/compiled-schema.js';
import { rlsSignature, rlsStatements } from './rls-ddl.js';

/** What a start-up sync of row security did. */
export interface RowSecuritySyncReport {
  /** Schema paths whose grants and policies were (re)written. */
  updated: string[];
  /** Schema paths already up to date. */
  current: string[];
  /** Schema paths that failed (logged; the others are still synced). */
  failed: string[];
}

/**
 * Brings every schema table's row-security policies and API-role grants up to date (layer 7).
 * Policies are otherwise written only when a definition is applied, so tables made before layer 7
 * existed, or before its SQL last changed, would keep no or outdated policies. Each table's
 * `weft_select` policy carries a signature of the statements that made it; a table whose signature
 * matches is left alone (one catalogue query in all), the others are rewritten, each in its own
 * transaction under the apply lock. Idempotent; run at start-up.
 */
export async function syncRowSecurity(
  pool: Pool,
  schemas: CompiledSchema[],
  logger?: Logger,
): Promise<RowSecuritySyncReport> {
  const definitions = schemas.map((schema) => schema.definition);
  const report: RowSecuritySyncReport = { updated: [], current: [], failed: [] };
  if (definitions.length === 0) return report;
  const { rows } = await pool.query<{ path: string; note: string | null }>(
    `SELECT t.path, obj_description(p.oid, 'pg_policy') AS note
     FROM unnest($1::text[], $2::text[]) AS t(path, tab)
     LEFT JOIN pg_policy p ON p.polrelid = to_regclass(t.tab) AND p.polname = 'weft_select'`,
    [definitions.map((definition) => definition.path), definitions.map(qualifiedTable)],
  );
  const notes = new Map(rows.map((row) => [row.path, row.note]));
  for (const definition of definitions) {
    if (notes.get(definition.path) === rlsSignature(definition)) {
      report.current.push(definition.path);
      continue;
    }
    try {
      await withTransaction(pool, async (client) => {
        await client.query(`SELECT pg_advisory_xact_lock(hashtext('weft_records_apply'))`);
        for (const sql of rlsStatements(definition)) await client.query(sql);
      });
      report.updated.push(definition.path);
    } catch (error) {
      report.failed.push(definition.path);
      logger?.error(
        { schema: definition.path, err: error },
        'row-level security could not be brought up to date',
      );
    }
  }
  if (report.updated.length > 0) logger?.info({ schemas: report.updated }, 'row-level security updated');
  return report;
}
