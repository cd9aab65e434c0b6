import { isServiceError } from '../../platform/http/service-error.js';
import { RecordsErrors } from '../errors.js';
import { parseQueryBody } from '../records/query-body.js';
import type { Condition } from '../records/select-plan.js';
import { schemaColumns, type ColumnInfo, type CompiledSchema } from '../schemas/compiled-schema.js';
import type { ArchiveSpec, SchemaDefinition } from '../types.js';

/** Longest `afterDays` accepted (a century). */
const maxAfterDays = 36_500;

/** The key the archive adds to every archived record it shows. */
export const archivedAtField = 'archived_at';

/**
 * The schema as cold storage sees it: every column (system fields included) may be filtered and
 * sorted on, since cold storage has no per-field indexes to protect and soft-deleted records are
 * what archives most often hold.
 */
export function archiveView(
  definition: SchemaDefinition,
): Pick<CompiledSchema, 'path' | 'columns'> & { columns: Map<string, ColumnInfo> } {
  const columns = schemaColumns(definition);
  for (const [name, column] of columns) columns.set(name, { ...column, filterable: true, sortable: true });
  return { path: definition.path, columns };
}

/** Parses a query DSL `where` against the archive view (a ServiceError 400 when it does not fit). */
export function parseArchiveWhere(definition: SchemaDefinition, where: unknown): Condition {
  const plan = parseQueryBody(archiveView(definition), { where });
  const condition = plan.where[0];
  if (!condition) throw RecordsErrors.validation('Invalid condition');
  return condition;
}

/** One problem with `spec.archive`, at a path inside the document. */
export interface ArchiveSpecProblem {
  path: string;
  reason: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Validates `spec.archive {afterDays, condition, retainDays}` of a definition whose fields are
 * already valid: `afterDays` an integer from 0 to 36500, `retainDays` (optional) from 1 to 36500, `condition` a query DSL `where` over the schema's fields
 * (system fields included). A field named `archived_at` is refused, since archived records carry it.
 */
export function validateArchiveSpec(
  raw: unknown,
  definition: SchemaDefinition,
): { spec: ArchiveSpec } | { problems: ArchiveSpecProblem[] } {
  const problems: ArchiveSpecProblem[] = [];
  if (!isRecord(raw)) return { problems: [{ path: 'spec.archive', reason: 'must be an object' }] };
  for (const key of Object.keys(raw))
    if (key !== 'afterDays' && key !== 'condition' && key !== 'retainDays')
      problems.push({ path: `spec.archive.${key.slice(0, 100)}`, reason: 'is not an archive property' });
  const afterDays = raw.afterDays;
  if (
    typeof afterDays !== 'number' ||
    !Number.isInteger(afterDays) ||
    afterDays < 0 ||
    afterDays > maxAfterDays
  )
    problems.push({ path: 'spec.archive.afterDays', reason: `must be an integer from 0 to ${maxAfterDays}` });
  const retainDays = raw.retainDays;
  if (
    retainDays !== undefined &&
    (typeof retainDays !== 'number' ||
      !Number.isInteger(retainDays) ||
      retainDays < 1 ||
      retainDays > maxAfterDays)
  )
    problems.push({
      path: 'spec.archive.retainDays',
      reason: `must be an integer from 1 to ${maxAfterDays}`,
    });
  if (definition.fields.some((field) => field.name === archivedAtField))
    problems.push({
      path: 'spec.fields',
      reason: `a schema with spec.archive cannot have a field named ${archivedAtField}`,
    });
  if (raw.condition !== undefined) {
    try {
      parseArchiveWhere(definition, raw.condition);
    } catch (error) {
      if (!isServiceError(error)) throw error;
      const listed = (error.details as { errors?: { field: string; reason: string }[] } | undefined)?.errors;
      for (const item of listed ?? [{ field: 'where', reason: 'is not a valid condition' }])
        problems.push({
          path: `spec.archive.condition${item.field.replace(/^where/, '')}`,
          reason: item.reason,
        });
    }
  }
  if (problems.length > 0) return { problems };
  const spec: ArchiveSpec = { afterDays: afterDays as number };
  if (raw.condition !== undefined) spec.condition = raw.condition;
  if (retainDays !== undefined) spec.retainDays = retainDays as number;
  return { spec };
}
