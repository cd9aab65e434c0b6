import { RecordsErrors } from '../errors.js';
import { uuidPattern } from '../schemas/identifiers.js';
import type { ColumnInfo } from '../schemas/compiled-schema.js';

const integerText = /^-?\d{1,18}$/;
const numberText = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;
const dateText = /^\d{4}-\d{2}-\d{2}$/;
const timestampText =
  /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:Z|[+-]\d{2}(?::?\d{2})?)$/i;

function bad(field: string, reason: string): never {
  throw RecordsErrors.validation(`Invalid value for ${field}`, [{ field, reason }]);
}

/**
 * Checks a value compared with a column (from a query string or a query body) and returns it in
 * the form its parameter is sent: text Postgres parses with the column's type. Anything that does
 * not fit is a 400 here, not a database error later.
 */
export function coerceValue(column: ColumnInfo, value: unknown, at = column.name): string {
  const text =
    typeof value === 'string'
      ? value
      : typeof value === 'number' || typeof value === 'boolean'
        ? String(value)
        : undefined;
  if (column.type === 'json') return JSON.stringify(value);
  if (text === undefined) return bad(at, `must be a ${column.type} value`);
  if (text.includes('\u0000')) return bad(at, 'must not contain NUL characters');
  switch (column.type) {
    case 'integer':
      return integerText.test(text) ? text : bad(at, 'must be an integer');
    case 'number':
      return numberText.test(text) && text.length <= 64 ? text : bad(at, 'must be a number');
    case 'boolean':
      return text === 'true' || text === 'false' ? text : bad(at, 'must be true or false');
    case 'uuid':
      return uuidPattern.test(text) ? text : bad(at, 'must be a UUID');
    case 'date':
      return dateText.test(text) && !Number.isNaN(Date.parse(text))
        ? text
        : bad(at, 'must be a date (YYYY-MM-DD)');
    case 'timestamp':
      return timestampText.test(text) && !Number.isNaN(Date.parse(text.replace(' ', 'T')))
        ? text
        : bad(at, 'must be an ISO 8601 timestamp with a time zone');
    case 'enum':
    case 'string':
      return text.length <= 10_000 ? text : bad(at, 'is too long');
  }
}
