import { RecordsErrors } from '../errors.js';
import type { CompiledSchema } from './compiled-schema.js';

/**
 * The schemas being served, kept in memory. A change replaces the whole map in one assignment, so
 * a request sees either the old set or the new one, never a mixture.
 */
export class SchemaRegistry {
  private schemas: ReadonlyMap<string, CompiledSchema> = new Map();
  private generation = 0;

  /** Swaps in a new set of schemas. */
  replace(schemas: ReadonlyMap<string, CompiledSchema>): void {
    this.schemas = schemas;
    this.generation += 1;
  }

  /** Increases on every swap (lets derived documents such as OpenAPI be cached). */
  get version(): number {
    return this.generation;
  }

  /** Every served schema, in path order. */
  all(): CompiledSchema[] {
    return [...this.schemas.values()].sort((a, b) => a.path.localeCompare(b.path));
  }

  /** The schema at `path`, or 404 SCHEMA_NOT_FOUND. */
  resolve(path: string): CompiledSchema {
    const schema = this.schemas.get(path);
    if (!schema) throw RecordsErrors.schemaNotFound(path);
    return schema;
  }
}
