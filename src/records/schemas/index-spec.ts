import type { FieldDefinition, SchemaIndex } from '../types.js';

/** Most indexes a schema may declare (each costs every write). */
export const maxDeclaredIndexes = 10;
/** Most fields in one declared index. */
export const maxIndexFields = 8;
/** System fields a declared index may hold besides the schema's own. */
export const indexableSystemFields = ['created_at', 'updated_at', 'created_by', 'updated_by'] as const;

/**
 * Validates `spec.indexes`: a list of `{fields}`, each 1 to 8 distinct names of the schema's
 * fields (not json) or of the system fields above, no two alike. Problems go to `problem`; the
 * result holds the valid entries.
 */
export function validateIndexes(
  raw: unknown,
  fields: readonly FieldDefinition[],
  problem: (path: string, reason: string) => void,
): SchemaIndex[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) {
    problem('spec.indexes', 'must be a list');
    return [];
  }
  if (raw.length > maxDeclaredIndexes) {
    problem('spec.indexes', `must have at most ${maxDeclaredIndexes} entries`);
    return [];
  }
  const types = new Map(fields.map((field) => [field.name, field.type]));
  const seen = new Set<string>();
  const indexes: SchemaIndex[] = [];
  raw.forEach((entry: unknown, i) => {
    const at = `spec.indexes[${i}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      problem(at, 'must be an object with fields');
      return;
    }
    const extra = Object.keys(entry).filter((key) => key !== 'fields');
    for (const key of extra) problem(`${at}.${key}`, 'is not an index property');
    const names = (entry as { fields?: unknown }).fields;
    if (!Array.isArray(names) || names.length === 0 || names.length > maxIndexFields) {
      problem(`${at}.fields`, `must be a list of 1 to ${maxIndexFields} field names`);
      return;
    }
    let valid = extra.length === 0;
    names.forEach((name: unknown, j) => {
      const system = (indexableSystemFields as readonly unknown[]).includes(name);
      const type = typeof name === 'string' ? types.get(name) : undefined;
      if (!system && type === undefined) {
        problem(
          `${at}.fields[${j}]`,
          'must name a field of the schema or created_at, updated_at, created_by, updated_by',
        );
        valid = false;
      } else if (type === 'json') {
        problem(`${at}.fields[${j}]`, 'json fields cannot be in an index');
        valid = false;
      }
    });
    if (new Set(names).size !== names.length) {
      problem(`${at}.fields`, 'must not name a field twice');
      valid = false;
    }
    const key = names.join(',');
    if (valid && seen.has(key)) {
      problem(`${at}.fields`, 'duplicates an earlier index');
      valid = false;
    }
    seen.add(key);
    if (valid) indexes.push({ fields: names as string[] });
  });
  return indexes;
}
