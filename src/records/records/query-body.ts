import { RecordsErrors } from '../errors.js';
import type { CompiledSchema } from '../schemas/compiled-schema.js';
import {
  columnFor,
  comparison,
  comparisonOperators,
  parseLimit,
  type ComparisonOperator,
  type Condition,
  type SelectPlan,
  type SortKey,
} from './select-plan.js';

const maxDepth = 10;
const maxConditions = 200;

function fail(field: string, reason: string): never {
  throw RecordsErrors.validation('Invalid query', [{ field, reason }]);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Parses the body of `POST /{path}/query`: `{where, select, sort, limit, cursor}`, where `where` is
 * `{field, op, value}`, `{and: [...]}`, `{or: [...]}` or `{not: condition}`.
 */
export function parseQueryBody(schema: Pick<CompiledSchema, 'path' | 'columns'>, body: unknown): SelectPlan {
  if (!isRecord(body)) return fail('(body)', 'must be a JSON object');
  for (const key of Object.keys(body))
    if (!['where', 'select', 'sort', 'limit', 'cursor'].includes(key))
      fail(key.slice(0, 100), 'is not a query property');
  let count = 0;
  const condition = (raw: unknown, at: string, depth: number): Condition => {
    if (depth > maxDepth) return fail(at, `conditions nest at most ${maxDepth} deep`);
    if ((count += 1) > maxConditions) return fail(at, `at most ${maxConditions} conditions`);
    if (!isRecord(raw)) return fail(at, 'must be an object');
    const keys = Object.keys(raw);
    if (keys.length === 1 && (keys[0] === 'and' || keys[0] === 'or')) {
      const kind = keys[0];
      const items = raw[kind];
      if (!Array.isArray(items) || items.length === 0)
        return fail(`${at}.${kind}`, 'must be a non-empty list');
      return {
        kind,
        items: items.map((item, index) => condition(item, `${at}.${kind}[${index}]`, depth + 1)),
      };
    }
    if (keys.length === 1 && keys[0] === 'not')
      return { kind: 'not', item: condition(raw.not, `${at}.not`, depth + 1) };
    for (const key of keys)
      if (!['field', 'op', 'value'].includes(key))
        fail(`${at}.${key.slice(0, 100)}`, 'is not a condition property');
    if (typeof raw.field !== 'string') return fail(`${at}.field`, 'must be a field name');
    const op = raw.op ?? 'eq';
    if (typeof op !== 'string' || !(comparisonOperators as readonly string[]).includes(op))
      return fail(`${at}.op`, `must be one of ${comparisonOperators.join(', ')}`);
    if (!('value' in raw) && op !== 'exists') return fail(`${at}.value`, 'is required');
    const column = columnFor(schema, raw.field, 'filter', `${at}.field`);
    return comparison(
      column,
      op as ComparisonOperator,
      op === 'exists' ? (raw.value ?? true) : raw.value,
      `${at}.value`,
    );
  };
  const plan: SelectPlan = { where: [], sort: [], limit: parseLimit(body.limit) };
  if (body.where !== undefined) plan.where.push(condition(body.where, 'where', 0));
  if (body.select !== undefined) {
    if (!Array.isArray(body.select) || body.select.length === 0 || body.select.length > 300)
      return fail('select', 'must be a non-empty list of field names');
    plan.select = [
      ...new Set(
        body.select.map((name, index) =>
          typeof name === 'string'
            ? columnFor(schema, name, 'select', `select[${index}]`)
            : fail(`select[${index}]`, 'must be a field name'),
        ),
      ),
    ];
  }
  if (body.sort !== undefined) {
    if (!Array.isArray(body.sort) || body.sort.length > 10)
      return fail('sort', 'must be a list of at most 10 sort keys');
    plan.sort = body.sort.map((raw, index): SortKey => {
      const at = `sort[${index}]`;
      if (!isRecord(raw) || typeof raw.field !== 'string') return fail(at, 'must be {field, direction}');
      const direction = raw.direction ?? 'asc';
      if (direction !== 'asc' && direction !== 'desc') return fail(`${at}.direction`, 'must be asc or desc');
      return {
        column: columnFor(schema, raw.field, 'sort', `${at}.field`),
        descending: direction === 'desc',
      };
    });
  }
  if (body.cursor !== undefined) {
    if (typeof body.cursor !== 'string') return fail('cursor', 'must be a string');
    plan.cursor = body.cursor;
  }
  return plan;
}
