import { createHash } from 'node:crypto';
import { pgSchemaName, pgTableName, quoteIdent, quoteLiteral } from '../schemas/identifiers.js';
import type { FieldDefinition, SchemaDefinition } from '../types.js';
import { qualifiedTable, tableName } from './table-ddl.js';

/**
 * Referential check of `references` fields, in the database so no write path can skip it: a
 * BEFORE INSERT OR UPDATE OF <reference columns> row trigger refuses a value with no live row
 * (`deleted_at IS NULL`) in the target schema's table. The function runs as the owner (SECURITY
 * DEFINER, fixed search_path), so it sees the target row whatever the caller's row-level security
 * shows, and answers only "exists or not". An UPDATE re-checks only the reference columns whose
 * value changes; NULL is not checked (NOT NULL covers required fields). Existing rows are not
 * re-validated when the trigger is (re)created. See docs/records/resources-and-schemas.md.
 */

/** The SQLSTATE the trigger raises; the column of the error names the field. */
export const referenceNotFoundState = 'WRF01';

/** The name of the trigger on a table with reference fields. */
export const referenceTriggerName = 'record_references';

/** The Postgres schema and name of a schema version's reference-check function. */
export function referenceFunctionName(definition: SchemaDefinition): { schema: string; name: string } {
  const digest = createHash('sha256').update(tableName(definition)).digest('hex').slice(0, 24);
  return { schema: pgSchemaName(definition.org), name: `references_${digest}` };
}

/** The fields of a definition declared `references: <schema path>`. */
export function referenceFields(definition: SchemaDefinition): FieldDefinition[] {
  return definition.fields.filter((field) => field.references !== undefined);
}

function targetTable(path: string): { regclass: string; quoted: string } {
  const [org = '', app = '', domain = '', object = '', version = ''] = path.split('/');
  const schema = pgSchemaName(org);
  const table = pgTableName(app, domain, object, version);
  return { regclass: `${schema}.${table}`, quoted: `${quoteIdent(schema)}.${quoteIdent(table)}` };
}

function fieldCheck(definition: SchemaDefinition, field: FieldDefinition): string {
  const column = `NEW.${quoteIdent(field.name)}`;
  const target = targetTable(field.references ?? '');
  // A record may point at itself (same schema): its row is not there yet before the insert.
  const self = target.quoted === qualifiedTable(definition) ? ` AND ${column} IS DISTINCT FROM NEW.id` : '';
  // The target table may not be applied yet: then no id exists. The static query in the ELSE
  // branch is planned only when it runs, so a missing table is never looked up.
  return `
  IF ${column} IS NOT NULL${self} AND (TG_OP = 'INSERT' OR ${column} IS DISTINCT FROM OLD.${quoteIdent(field.name)}) THEN
    IF to_regclass(${quoteLiteral(target.regclass)}) IS NULL THEN
      present := false;
    ELSE
      SELECT EXISTS (SELECT 1 FROM ${target.quoted} t WHERE t.id = ${column} AND t.deleted_at IS NULL) INTO present;
    END IF;
    IF NOT present THEN
      RAISE EXCEPTION USING ERRCODE = ${quoteLiteral(referenceNotFoundState)},
        MESSAGE = ${quoteLiteral(`${field.name} refers to a record that does not exist in ${field.references}`)},
        COLUMN = ${quoteLiteral(field.name)};
    END IF;
  END IF;`;
}

/** The body of a schema version's reference-check function (what `pg_proc.prosrc` holds). */
export function referenceFunctionBody(definition: SchemaDefinition): string {
  return `
DECLARE
  present boolean;
BEGIN${referenceFields(definition)
    .map((field) => fieldCheck(definition, field))
    .join('')}
  RETURN NEW;
END`;
}

/**
 * The reference-check function and trigger of a schema version, replaced whenever the definition
 * changes; a version without reference fields drops them (so removing `references` removes the check).
 */
export function referenceTriggerStatements(definition: SchemaDefinition): string[] {
  const { schema, name } = referenceFunctionName(definition);
  const fn = `${quoteIdent(schema)}.${quoteIdent(name)}`;
  const table = qualifiedTable(definition);
  const fields = referenceFields(definition);
  if (fields.length === 0)
    return [`DROP TRIGGER IF EXISTS ${referenceTriggerName} ON ${table}`, `DROP FUNCTION IF EXISTS ${fn}()`];
  const columns = fields.map((field) => quoteIdent(field.name)).join(', ');
  return [
    `CREATE OR REPLACE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $weft$${referenceFunctionBody(definition)}$weft$`,
    // Only the owner's triggers call it; requests have no reason to.
    `REVOKE ALL ON FUNCTION ${fn}() FROM PUBLIC`,
    `CREATE OR REPLACE TRIGGER ${referenceTriggerName} BEFORE INSERT OR UPDATE OF ${columns} ON ${table} FOR EACH ROW EXECUTE FUNCTION ${fn}()`,
  ];
}
