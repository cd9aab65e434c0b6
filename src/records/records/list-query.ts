import { RecordsErrors } from '../errors.js';
import type { CompiledSchema } from '../schemas/compiled-schema.js';
import {
  columnFor,
  comparison,
  comparisonOperators,
  parseLimit,
  parseOffset,
  type ComparisonOperator,
  type Condition,
  type SelectPlan,
  type SortKey,
} from './select-plan.js';

const listOperators = new Set<string>(['eq', 'gt', 'lt', 'gte', 'lte', 'ne', 'in', 'exists']);
const filterKey = /^filter\[([^[\]]{1,100})\](?:\[([^[\]]{1,20})\])?$/;
const maxFilters = 50;

function fail(field: string, reason: string): never {
  throw RecordsErrors.validation(`Invalid query parameter ${field}`, [{ field, reason }]);
}

/** Parses `sort=-a,+b,c` into sort keys on sortable fields. */
export function parseSortParameter(schema: CompiledSchema, value: string): SortKey[] {
  const parts = value.split(',');
  if (parts.length > 10) return fail('sort', 'at most 10 sort fields');
  return parts.map((part) => {
    const descending = part.startsWith('-');
    // An unencoded `+` arrives as a space.
    const name = /^[-+ ]/.test(part) ? part.slice(1) : part;
    return { column: columnFor(schema, name, 'sort', 'sort'), descending };
  });
}

/**
 * Turns the list endpoint's query string into a plan: `filter[f]`, `filter[f][op]`, `sort`,
 * `limit`, `offset`, `cursor`. Unknown parameters, fields and operators are 400s.
 */
export function parseListQuery(schema: CompiledSchema, query: Record<string, unknown>): SelectPlan {
  const where: Condition[] = [];
  let sort: SortKey[] = [];
  const single = (name: string, value: unknown): string => {
    if (typeof value !== 'string') return fail(name, 'must be given once');
    return value;
  };
  for (const [key, raw] of Object.entries(query)) {
    if (key === 'limit' || key === 'offset' || key === 'cursor') continue;
    if (key === 'sort') {
      sort = parseSortParameter(schema, single(key, raw));
      continue;
    }
    // Joins of reference fields: parsed and authorised by the access layer.
    if (key === 'include') continue;
    const match = filterKey.exec(key);
    if (!match?.[1]) return fail(key.slice(0, 120), 'is not a list parameter');
    if (where.length >= maxFilters) return fail(key, `at most ${maxFilters} filters`);
    const operator = match[2] ?? 'eq';
    if (!listOperators.has(operator) || !(comparisonOperators as readonly string[]).includes(operator))
      return fail(key, `unknown operator; use one of ${[...listOperators].join(', ')}`);
    const column = columnFor(schema, match[1], 'filter', key);
    where.push(comparison(column, operator as ComparisonOperator, single(key, raw), key));
  }
  const limit = parseLimit(query.limit === undefined ? undefined : single('limit', query.limit));
  const plan: SelectPlan = { where, sort, limit };
  if (query.cursor !== undefined) plan.cursor = single('cursor', query.cursor);
  if (query.offset !== undefined) {
    if (plan.cursor !== undefined) return fail('offset', 'use either offset or cursor');
    plan.offset = parseOffset(single('offset', query.offset), limit);
  }
  return plan;
}
