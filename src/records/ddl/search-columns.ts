import { createHash } from 'node:crypto';
import { quoteIdent } from '../schemas/identifiers.js';
import type { FieldDefinition, SchemaDefinition } from '../types.js';
import { qualifiedTable, tableName } from './table-ddl.js';

/**
 * Full-text search columns (docs/records/search.md). Tier 2 and 3 tables get a generated
 * `_search_vector` (weighted `simple` tsvector over the searchable fields, GIN-indexed); tier 3 also
 * `_search_text`, the fields' lower-cased text under a trigram index for typo tolerance. Neither
 * column is part of record JSON.
 */

/** The text search configuration: no stemming, no stop words, so every language behaves alike. */
export const searchConfig = 'simple';

const textTypes = new Set(['string', 'enum', 'json']);

/** Searchable fields that the search columns cover (text-like types), in definition order. */
export function searchFields(definition: SchemaDefinition): FieldDefinition[] {
  if (definition.searchTier < 2) return [];
  return definition.fields.filter((field) => field.searchable && textTypes.has(field.type));
}

function textOf(field: FieldDefinition): string {
  const column = quoteIdent(field.name);
  return field.type === 'json' ? `coalesce(${column}::text, '')` : `coalesce(${column}, '')`;
}

const weights = ['A', 'B', 'C', 'D'];

function vectorExpression(fields: FieldDefinition[]): string {
  return fields
    .map(
      (field, index) =>
        `setweight(to_tsvector('${searchConfig}'::regconfig, ${textOf(field)}), '${weights[Math.min(index, 2)]}')`,
    )
    .join(' || ');
}

function textExpression(fields: FieldDefinition[]): string {
  return `lower(${fields.map(textOf).join(` || ' ' || `)})`;
}

function indexName(definition: SchemaDefinition, kind: string): string {
  const digest = createHash('sha256')
    .update(`${tableName(definition)}:${kind}`)
    .digest('hex')
    .slice(0, 24);
  return `sx_${digest}`;
}

/** What identifies a definition's search columns: when it changes, they are rebuilt. */
export function searchSignature(definition: SchemaDefinition): string {
  const fields = searchFields(definition);
  if (fields.length === 0) return '';
  return `${definition.searchTier}:${fields.map((field) => `${field.name}/${field.type}`).join(',')}`;
}

/** Columns and indexes for the definition's tier (none below tier 2 or without searchable fields). */
export function searchColumnStatements(definition: SchemaDefinition): string[] {
  const fields = searchFields(definition);
  if (fields.length === 0) return [];
  const table = qualifiedTable(definition);
  const statements = [
    `ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS _search_vector tsvector GENERATED ALWAYS AS (${vectorExpression(fields)}) STORED`,
    `CREATE INDEX IF NOT EXISTS ${quoteIdent(indexName(definition, 'vector'))} ON ${table} USING gin (_search_vector)`,
  ];
  if (definition.searchTier >= 3)
    statements.push(
      `ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS _search_text text GENERATED ALWAYS AS (${textExpression(fields)}) STORED`,
      `CREATE INDEX IF NOT EXISTS ${quoteIdent(indexName(definition, 'trigram'))} ON ${table} USING gin (_search_text gin_trgm_ops)`,
    );
  return statements;
}

/** Drops the search columns (and with them their indexes), before rebuilding them. */
export function dropSearchColumnStatements(definition: SchemaDefinition): string[] {
  const table = qualifiedTable(definition);
  return [`ALTER TABLE ${table} DROP COLUMN IF EXISTS _search_vector, DROP COLUMN IF EXISTS _search_text`];
}

/**
 * The search expressions over the searchable fields a caller may read (each keeps its weight), for
 * callers that may not read some of them: the stored columns also cover the hidden fields, so
 * matching those would reveal their text. Undefined when no searchable field is hidden; `vector`
 * is undefined when every one is.
 */
export function visibleSearchSql(
  definition: SchemaDefinition,
  hidden: ReadonlySet<string>,
): { vector: string | undefined; text: string | undefined } | undefined {
  const fields = searchFields(definition);
  if (!fields.some((field) => hidden.has(field.name))) return undefined;
  const visible = fields.filter((field) => !hidden.has(field.name));
  if (visible.length === 0) return { vector: undefined, text: undefined };
  const vector = fields
    .map((field, index) =>
      hidden.has(field.name)
        ? undefined
        : `setweight(to_tsvector('${searchConfig}'::regconfig, ${textOf(field)}), '${weights[Math.min(index, 2)]}')`,
    )
    .filter((part): part is string => part !== undefined)
    .join(' || ');
  return { vector: `(${vector})`, text: textExpression(visible) };
}
