import { RecordsErrors } from '../errors.js';
import { columnFor, comparison, parseLimit, type ComparisonOperator } from '../records/select-plan.js';
import type { CompiledSchema } from '../schemas/compiled-schema.js';
import type { SchemaSearch } from './search-backend.js';

function fail(field: string, reason: string): never {
  throw RecordsErrors.validation(`Invalid ${field}`, [{ field, reason }]);
}

// Typesense's filter operators, mapped onto the list filter operators.
const operators: [string, ComparisonOperator][] = [
  ['>=', 'gte'],
  ['<=', 'lte'],
  ['!=', 'ne'],
  ['>', 'gt'],
  ['<', 'lt'],
  ['=', 'eq'],
];

/**
 * Parses `{q, filter_by, sort_by, limit}`. `filter_by` is Typesense-style clauses joined by `&&`:
 * `field:=v`, `field:!=v`, `field:>v` (`>=`, `<`, `<=`), `field:[a,b]` (in), `field:v` (equals),
 * checked like list filters (filterable fields, typed values); `sort_by` is `field:asc,…` over
 * sortable fields and `_text_match`.
 */
export function parseSearchBody(schema: CompiledSchema, body: unknown): SchemaSearch {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return fail('(body)', 'must be a JSON object');
  const raw = body as Record<string, unknown>;
  for (const key of Object.keys(raw))
    if (!['q', 'filter_by', 'sort_by', 'limit'].includes(key))
      fail(key.slice(0, 100), 'is not a search property');
  if (typeof raw.q !== 'string' || raw.q.trim() === '' || raw.q.length > 500)
    fail('q', 'must be a non-empty string of at most 500 characters');
  const search: SchemaSearch = { q: raw.q, where: [], sort: [], limit: parseLimit(raw.limit) };
  if (raw.filter_by !== undefined) {
    if (typeof raw.filter_by !== 'string' || raw.filter_by.length > 2000)
      fail('filter_by', 'must be a string');
    for (const clause of raw.filter_by.split('&&')) {
      const match = /^\s*([a-z_][a-z0-9_]*)\s*:(.*)$/.exec(clause);
      if (!match?.[1]) fail('filter_by', `cannot read ${JSON.stringify(clause.trim().slice(0, 100))}`);
      const column = columnFor(schema, match[1], 'filter', 'filter_by');
      const rest = (match[2] ?? '').trim();
      if (rest.startsWith('[') && rest.endsWith(']')) {
        search.where.push(
          comparison(
            column,
            'in',
            rest
              .slice(1, -1)
              .split(',')
              .map((v) => v.trim()),
            'filter_by',
          ),
        );
        continue;
      }
      const found = operators.find(([symbol]) => rest.startsWith(symbol));
      const value = found ? rest.slice(found[0].length).trim() : rest;
      search.where.push(comparison(column, found?.[1] ?? 'eq', value, 'filter_by'));
    }
  }
  if (raw.sort_by !== undefined) {
    if (typeof raw.sort_by !== 'string' || raw.sort_by.length > 500) fail('sort_by', 'must be a string');
    search.sort = raw.sort_by.split(',').map((part) => {
      const [name = '', direction = 'asc'] = part.trim().split(':');
      if (direction !== 'asc' && direction !== 'desc') fail('sort_by', 'directions are asc or desc');
      const descending = direction === 'desc';
      if (name === '_text_match') return { textMatch: true as const, descending };
      return { column: columnFor(schema, name, 'sort', 'sort_by'), descending };
    });
    if (search.sort.length > 5) fail('sort_by', 'at most 5 sort keys');
  }
  return search;
}
