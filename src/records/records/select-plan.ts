import { RecordsErrors } from '../errors.js';
import type { ColumnInfo, CompiledSchema } from '../schemas/compiled-schema.js';
import { coerceValue } from './coerce-value.js';

/** Comparison operators of filters and query conditions. */
export const comparisonOperators = [
  'eq',
  'ne',
  'gt',
  'gte',
  'lt',
  'lte',
  'in',
  'exists',
  'contains',
  'startsWith',
] as const;

/** One comparison operator. */
export type ComparisonOperator = (typeof comparisonOperators)[number];

/** A condition tree; leaves hold values already checked against their column's type. */
export type Condition =
  | { kind: 'and' | 'or'; items: Condition[] }
  | { kind: 'not'; item: Condition }
  | {
      kind: 'compare';
      column: ColumnInfo;
      operator: ComparisonOperator;
      value: string | string[] | boolean | null;
    };

/** One sort key. */
export interface SortKey {
  column: ColumnInfo;
  descending: boolean;
}

/** A read of several records: conditions, order, page and projection. */
export interface SelectPlan {
  where: Condition[];
  sort: SortKey[];
  limit: number;
  /** Offset pagination (returns `total`). */
  offset?: number;
  cursor?: string;
  /** Fields to return; every field when undefined. */
  select?: ColumnInfo[];
}

/** Default and largest page sizes; offset pages may not reach past the largest. */
export const pageLimits = { default: 100, max: 1000 } as const;

function fail(field: string, reason: string, message = `Invalid ${field}`): never {
  throw RecordsErrors.validation(message, [{ field, reason }]);
}

/** The column `name`, which must exist and allow `use`. */
export function columnFor(
  schema: Pick<CompiledSchema, 'path' | 'columns'>,
  name: string,
  use: 'filter' | 'sort' | 'select',
  at: string,
): ColumnInfo {
  const column = schema.columns.get(name);
  if (!column) return fail(at, `${name} is not a field of ${schema.path}`);
  if (use === 'filter' && !column.filterable) return fail(at, `${name} is not filterable`);
  if (use === 'sort' && !column.sortable) return fail(at, `${name} is not sortable`);
  return column;
}

const orderedTypes = new Set(['integer', 'number', 'timestamp', 'date', 'string', 'enum', 'uuid']);

/** Builds a comparison after checking the operator fits the column and the value fits its type. */
export function comparison(
  column: ColumnInfo,
  operator: ComparisonOperator,
  value: unknown,
  at: string,
): Condition {
  const leaf = (checked: Extract<Condition, { kind: 'compare' }>['value']): Condition => ({
    kind: 'compare',
    column,
    operator,
    value: checked,
  });
  switch (operator) {
    case 'exists':
      if (value === true || value === 'true') return leaf(true);
      if (value === false || value === 'false') return leaf(false);
      return fail(at, 'exists takes true or false');
    case 'in': {
      const items = typeof value === 'string' ? value.split(',') : value;
      if (!Array.isArray(items) || items.length === 0 || items.length > 1000)
        return fail(at, 'in takes a list of 1 to 1000 values');
      if (column.type === 'json') return fail(at, 'in does not apply to json fields');
      return leaf(items.map((item, index) => coerceValue(column, item, `${at}[${index}]`)));
    }
    case 'contains':
      if (column.type !== 'string' && column.type !== 'json')
        return fail(at, 'contains applies to string and json fields');
      return leaf(coerceValue(column, value, at));
    case 'startsWith':
      if (column.type !== 'string') return fail(at, 'startsWith applies to string fields');
      return leaf(coerceValue(column, value, at));
    case 'eq':
    case 'ne':
      if (value === null) return leaf(null);
      return leaf(coerceValue(column, value, at));
    default:
      if (!orderedTypes.has(column.type))
        return fail(at, `${operator} does not apply to ${column.type} fields`);
      return leaf(coerceValue(column, value, at));
  }
}

/** Parses `limit`, clamping it to the largest page. */
export function parseLimit(value: unknown, at = 'limit'): number {
  if (value === undefined) return pageLimits.default;
  const number = typeof value === 'string' && /^\d{1,9}$/.test(value) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number) || number < 1)
    return fail(at, 'must be a positive integer');
  return Math.min(number, pageLimits.max);
}

/** Parses `offset`; offset pages end at the 1000th result, past which a cursor is required. */
export function parseOffset(value: unknown, limit: number): number {
  const number = typeof value === 'string' && /^\d{1,9}$/.test(value) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number) || number < 0)
    return fail('offset', 'must be a non-negative integer');
  if (number + limit > pageLimits.max)
    return fail('offset', `offset pages end at result ${pageLimits.max}; use cursor pagination beyond it`);
  return number;
}
