import type { Pool } from '../../platform/database/pool.js';
import type { Logger } from '../../platform/logging/logger.js';
import { compileSchema, type CompiledSchema } from './compiled-schema.js';
import { validateSchemaDefinition } from './validate-definition.js';

/** The stored schemas, compiled, and the revision they were read at. */
export interface LoadedSchemas {
  schemas: Map<string, CompiledSchema>;
  revision: string;
}

/**
 * The highest resource revision and the number of resources: changes whenever any instance or the
 * CLI applies a resource, and when one is deleted (pruned or DELETEd), which leaves no revision.
 */
export async function currentRevision(pool: Pool): Promise<string> {
  const { rows } = await pool.query<{ revision: string }>(
    `SELECT coalesce(max(revision), 0)::text || ':' || count(*)::text AS revision FROM records.resources`,
  );
  return rows[0]?.revision ?? '0';
}

/** Reads and compiles every stored SchemaDefinition. */
export async function loadSchemas(pool: Pool, logger: Logger): Promise<LoadedSchemas> {
  const revision = await currentRevision(pool);
  const { rows } = await pool.query<{ name: string; document: { spec?: unknown } }>(
    `SELECT name, document FROM records.resources WHERE kind = 'SchemaDefinition' ORDER BY name`,
  );
  const schemas = new Map<string, CompiledSchema>();
  for (const row of rows) {
    const result = validateSchemaDefinition(row.document.spec);
    if (!result.ok) {
      logger.error(
        { schema: row.name, problems: result.problems },
        'a stored schema is invalid and is not served',
      );
      continue;
    }
    schemas.set(result.definition.path, compileSchema(result.definition));
  }
  return { schemas, revision };
}
