import { quoteIdent } from '../schemas/identifiers.js';
import { columnJsonSql, jsonObjectSql, type CompiledSchema } from '../schemas/compiled-schema.js';
import { coerceValue } from './coerce-value.js';
import type { CursorCodec } from './cursor.js';
import { mapRecordError } from './database-errors.js';
import type { Queryable } from '../../platform/database/queryable.js';
import type { Condition, SelectPlan, SortKey } from './select-plan.js';
import { SqlParams, statement } from './statement.js';

/** A page of records as JSON texts, with what the pagination block needs. */
export interface RecordPage {
  rows: string[];
  hasMore: boolean;
  cursor: string | null;
  total?: number;
}

/** SQL of a condition tree, its values added to `params`. */
export function renderCondition(condition: Condition, params: SqlParams): string {
  switch (condition.kind) {
    case 'and':
    case 'or':
      return `(${condition.items.map((item) => renderCondition(item, params)).join(` ${condition.kind.toUpperCase()} `)})`;
    case 'not':
      return `(NOT ${renderCondition(condition.item, params)})`;
    case 'compare': {
      const { column, operator, value } = condition;
      const col = quoteIdent(column.name);
      const param = () => params.add(value, column.pgType);
      switch (operator) {
        case 'exists':
          return value === true ? `${col} IS NOT NULL` : `${col} IS NULL`;
        case 'eq':
          return value === null ? `${col} IS NULL` : `${col} = ${param()}`;
        case 'ne':
          return value === null ? `${col} IS NOT NULL` : `${col} IS DISTINCT FROM ${param()}`;
        case 'gt':
          return `${col} > ${param()}`;
        case 'gte':
          return `${col} >= ${param()}`;
        case 'lt':
          return `${col} < ${param()}`;
        case 'lte':
          return `${col} <= ${param()}`;
        case 'in':
          return `${col} = ANY(${params.add(value, `${column.pgType}[]`)})`;
        case 'contains':
          return column.type === 'json'
            ? `${col} @> ${param()}`
            : `strpos(${col}, ${params.add(value, 'text')}) > 0`;
        case 'startsWith':
          return `starts_with(${col}, ${params.add(value, 'text')})`;
      }
    }
  }
}

/** The sort keys with `id` appended as the tie-breaker (following the last key's direction). */
function keysWithId(schema: CompiledSchema, sort: SortKey[]): SortKey[] {
  const keys =
    sort.length > 0 ? [...sort] : [{ column: schema.columns.get('created_at')!, descending: false }];
  if (!keys.some((key) => key.column.name === 'id'))
    keys.push({ column: schema.columns.get('id')!, descending: keys[keys.length - 1]?.descending ?? false });
  return keys;
}

/**
 * Rows strictly after the cursor position in the sort order (NULLs sort last ascending, first
 * descending, as Postgres orders them). When every key is NOT NULL and runs one way, a row
 * comparison lets the index do the work.
 */
function afterCursor(keys: SortKey[], values: unknown[], params: SqlParams): string {
  const column = (key: SortKey) => quoteIdent(key.column.name);
  const value = (key: SortKey, index: number) =>
    params.add(coerceValue(key.column, values[index], 'cursor'), key.column.pgType);
  const sameWay = keys.every((key) => key.descending === keys[0]?.descending);
  if (sameWay && keys.every((key, index) => key.column.notNull && values[index] !== null)) {
    const op = keys[0]?.descending ? '<' : '>';
    return `(${keys.map(column).join(', ')}) ${op} (${keys.map(value).join(', ')})`;
  }
  const branches: string[] = [];
  keys.forEach((key, index) => {
    const parts: string[] = [];
    for (let before = 0; before < index; before += 1) {
      const earlier = keys[before]!;
      parts.push(
        values[before] === null
          ? `${column(earlier)} IS NULL`
          : `${column(earlier)} = ${value(earlier, before)}`,
      );
    }
    const current = values[index];
    if (key.descending)
      parts.push(current === null ? `${column(key)} IS NOT NULL` : `${column(key)} < ${value(key, index)}`);
    else if (current === null) return;
    else parts.push(`(${column(key)} > ${value(key, index)} OR ${column(key)} IS NULL)`);
    branches.push(`(${parts.join(' AND ')})`);
  });
  return branches.length > 0 ? `(${branches.join(' OR ')})` : 'false';
}

/**
 * Reads a page of live records in one statement: Postgres builds each record's JSON, a keyset
 * array for the cursor, and (offset pages only) the total via a window count.
 */
export async function selectRecords(
  db: Queryable,
  schema: CompiledSchema,
  plan: SelectPlan,
  cursors: CursorCodec,
): Promise<RecordPage> {
  const params = new SqlParams();
  const keys = keysWithId(schema, plan.sort);
  const conditions = [
    'deleted_at IS NULL',
    ...(schema.rowFilter !== undefined ? [schema.rowFilter] : []),
    ...plan.where.map((condition) => renderCondition(condition, params)),
  ];
  // What a cursor is bound to: the query without its page (limit, offset) and position.
  const query = JSON.stringify([
    schema.path,
    conditions,
    params.values,
    keys.map((key) => [key.column.name, key.descending]),
    plan.select?.map((column) => column.name) ?? null,
  ]);
  if (plan.cursor !== undefined)
    conditions.push(afterCursor(keys, cursors.decode(plan.cursor, query, keys.length), params));
  const json = plan.select
    ? jsonObjectSql(plan.select.map((column) => [column.name, columnJsonSql(column)]))
    : schema.recordJson;
  const keyArray = `json_build_array(${keys.map((key) => quoteIdent(key.column.name)).join(', ')})::text AS k`;
  const withTotal = plan.offset !== undefined;
  const order = keys
    .map((key) => `${quoteIdent(key.column.name)} ${key.descending ? 'DESC' : 'ASC'}`)
    .join(', ');
  const text =
    `SELECT ${json}::text AS j, ${keyArray}${withTotal ? ', count(*) OVER () AS total' : ''} FROM ${schema.table}` +
    ` WHERE ${conditions.join(' AND ')} ORDER BY ${order} LIMIT ${plan.limit + 1}` +
    (withTotal ? ` OFFSET ${plan.offset}` : '');
  let result;
  try {
    result = await db.query<{ j: string; k: string; total?: string }>(statement(text, params.values));
  } catch (error) {
    throw mapRecordError(schema, error);
  }
  const hasMore = result.rows.length > plan.limit;
  const rows = hasMore ? result.rows.slice(0, plan.limit) : result.rows;
  const last = rows[rows.length - 1];
  const page: RecordPage = {
    rows: rows.map((row) => row.j),
    hasMore,
    cursor: hasMore && last ? cursors.encode(query, last.k) : null,
  };
  if (withTotal) {
    if (result.rows[0]?.total !== undefined) page.total = Number(result.rows[0].total);
    else {
      const count = await db.query<{ total: string }>(
        statement(
          `SELECT count(*) AS total FROM ${schema.table} WHERE ${conditions.join(' AND ')}`,
          params.values,
        ),
      );
      page.total = Number(count.rows[0]?.total ?? 0);
    }
  }
  return page;
}
