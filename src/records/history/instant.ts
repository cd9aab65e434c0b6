import { RecordsErrors } from '../errors.js';

const isoInstant = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:Z|[+-]\d{2}(?::?\d{2})?)$/i;

/**
 * Checks an ISO 8601 instant with a zone (`Z` or an offset), kept as text so Postgres reads it with
 * its full microsecond precision (a JavaScript Date would drop the last three digits).
 */
export function parseInstant(value: unknown, field: string): string {
  if (typeof value !== 'string' || !isoInstant.test(value) || Number.isNaN(Date.parse(value)))
    throw RecordsErrors.validation(`Invalid ${field}`, [
      { field, reason: 'must be an ISO 8601 timestamp with a zone, e.g. 2025-01-31T12:00:00Z' },
    ]);
  return value;
}
