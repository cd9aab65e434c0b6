import type { Pool } from '../../platform/database/pool.js';
import type { Logger } from '../../platform/logging/logger.js';
import { compileSchema, type CompiledSchema } from './compiled-schema.js';
import { listSchemaDocuments, resourceRevision } from './resource-repository.js';
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
  return resourceRevision(pool);
}

/** Reads and compiles every stored SchemaDefinition. */
export async function loadSchemas(pool: Pool, logger: Logger): Promise<LoadedSchemas> {
  const revision = await currentRevision(pool);
  const rows = await listSchemaDocuments(pool);
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
