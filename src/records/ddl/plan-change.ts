import { pgSchemaName, quoteIdent } from '../schemas/identifiers.js';
import type { FieldDefinition, SchemaDefinition } from '../types.js';
import { columnDefinition, concurrently, indexesFor, qualifiedTable } from './table-ddl.js';

/** What changing a stored schema version into a new definition takes. */
export type ChangePlan =
  | {
      ok: true;
      /** Run in the apply transaction (instant column additions, index drops). */
      statements: string[];
      /** Run afterwards, outside a transaction, without blocking writes. */
      onlineIndexes: string[];
    }
  | { ok: false; reasons: string[] };

const shapeKeys: (keyof FieldDefinition)[] = [
  'type',
  'required',
  'unique',
  'default',
  'enum',
  'min',
  'max',
  'minLength',
  'maxLength',
  'pattern',
];

function sameShape(a: FieldDefinition, b: FieldDefinition): string | undefined {
  for (const key of shapeKeys)
    if (JSON.stringify(a[key]) !== JSON.stringify(b[key])) return `changes ${key} of field ${a.name}`;
  return undefined;
}

/**
 * Plans an online change: new optional fields and new or dropped indexes are applied; anything that
 * could break stored records or clients (a removed field, a changed type or constraint, a new
 * required field) is refused with a message that says to publish a new version.
 */
export function planChange(current: SchemaDefinition, next: SchemaDefinition): ChangePlan {
  const reasons: string[] = [];
  const nextFields = new Map(next.fields.map((field) => [field.name, field]));
  for (const field of current.fields) {
    const replacement = nextFields.get(field.name);
    if (!replacement) reasons.push(`removes field ${field.name}`);
    else {
      const difference = sameShape(field, replacement);
      if (difference) reasons.push(difference);
    }
  }
  const known = new Set(current.fields.map((field) => field.name));
  const added = next.fields.filter((field) => !known.has(field.name));
  for (const field of added) {
    if (field.required) reasons.push(`adds required field ${field.name}`);
    if (field.unique) reasons.push(`adds unique field ${field.name}`);
  }
  if (reasons.length > 0) {
    const nextVersion = `v${Number(current.version.slice(1)) + 1}`;
    return {
      ok: false,
      reasons: reasons.map(
        (reason) =>
          `${current.path} ${reason}: that is not an additive change; publish it as ${nextVersion} instead`,
      ),
    };
  }
  const table = qualifiedTable(next);
  const statements = added.map(
    (field) => `ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS ${columnDefinition(field)}`,
  );
  const before = new Map(indexesFor(current).map((index) => [index.name, index]));
  const after = new Map(indexesFor(next).map((index) => [index.name, index]));
  for (const name of before.keys())
    if (!after.has(name))
      statements.push(`DROP INDEX IF EXISTS ${quoteIdent(pgSchemaName(next.org))}.${quoteIdent(name)}`);
  const onlineIndexes = [...after.values()]
    .filter((index) => !before.has(index.name))
    .map((index) => concurrently(index.sql));
  return { ok: true, statements, onlineIndexes };
}
