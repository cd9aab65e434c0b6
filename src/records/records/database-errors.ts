import { pgErrorCode } from '../../platform/database/pool.js';
import { RecordsErrors } from '../errors.js';
import { referenceNotFoundState } from '../ddl/reference-triggers.js';
import type { CompiledSchema } from '../schemas/compiled-schema.js';

/**
 * Turns constraint and data errors of a record statement into 4xx errors: a unique violation names
 * its field; CHECK, NOT NULL, a reference to a missing record (the reference trigger) and data
 * exceptions (out of range, bad text) are 400s. Anything else is
 * rethrown unchanged (database unavailable → 503, the rest → 500).
 */
export function mapRecordError(schema: CompiledSchema, error: unknown): unknown {
  const code = pgErrorCode(error);
  if (code === undefined) return error;
  const detail = error as { constraint?: string; column?: string };
  if (code === '23505') {
    const constraint = detail.constraint ?? '';
    const field = constraint.endsWith('_pkey') ? 'id' : (schema.uniqueIndexes.get(constraint) ?? 'unknown');
    return RecordsErrors.uniqueViolation(field);
  }
  if (code === '23514') {
    const field = [...schema.columns.keys()].find((name) => detail.constraint?.includes(`_${name}_check`));
    return RecordsErrors.validation('A value is outside what the schema allows', [
      { field: field ?? detail.constraint ?? 'unknown', reason: 'violates a constraint of the schema' },
    ]);
  }
  if (code === '23502')
    return RecordsErrors.validation('A required field is missing', [
      { field: detail.column ?? 'unknown', reason: 'is required' },
    ]);
  if (code === referenceNotFoundState)
    return RecordsErrors.validation('A reference field names a record that does not exist', [
      { field: detail.column ?? 'unknown', reason: 'refers to a record that does not exist' },
    ]);
  // insufficient_privilege on a row: a row-level-security policy refused the new row (layer 7).
  if (code === '42501' && /row-level security/.test((error as Error).message))
    return RecordsErrors.rlsDenied(schema.path);
  if (code.startsWith('22'))
    return RecordsErrors.validation('A value cannot be stored', [
      { field: detail.column ?? '(value)', reason: 'is out of range or not representable' },
    ]);
  return error;
}
