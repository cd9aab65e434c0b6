import type { Condition } from '../../records/select-plan.js';
import { duckIdent, type DuckParameter } from './duck-engine.js';
import { duckType } from './file-layout.js';

/**
 * A query DSL condition as DuckDB SQL over `records.parquet`, made to select a **superset** of the
 * rows PostgreSQL would select: DuckDB narrows the files down fast, and PostgreSQL then decides
 * every candidate with the hot query's own SQL (archive-query.ts), so archive and hot queries agree
 * exactly. Comparisons DuckDB makes exactly as PostgreSQL (text in the C collation, integers,
 * booleans, dates, timestamps, UUIDs, NULL tests) are rendered as they are; the others are
 * widened: numbers are doubles here (`gt` becomes `>=`, `ne` is not tested), and JSON equality and
 * containment are not tested. Under `not` the widening turns round, so the result stays a superset.
 */
export function renderDuckCondition(
  condition: Condition,
  parameters: DuckParameter[],
  positive = true,
): string {
  switch (condition.kind) {
    case 'and':
    case 'or':
      return `(${condition.items.map((item) => renderDuckCondition(item, parameters, positive)).join(` ${condition.kind.toUpperCase()} `)})`;
    case 'not':
      return `(NOT ${renderDuckCondition(condition.item, parameters, !positive)})`;
    case 'compare':
      return renderComparison(condition, parameters) ?? (positive ? 'TRUE' : 'FALSE');
  }
}

type Comparison = Extract<Condition, { kind: 'compare' }>;

function renderComparison(condition: Comparison, parameters: DuckParameter[]): string | undefined {
  const { column, operator, value } = condition;
  const col = duckIdent(column.name);
  const param = (text: string) => {
    parameters.push(column.type === 'timestamp' ? canonicalTimestamp(text) : text);
    return `CAST($${parameters.length} AS ${duckType(column)})`;
  };
  if (operator === 'exists') return value === true ? `${col} IS NOT NULL` : `${col} IS NULL`;
  if (value === null) {
    if (operator === 'eq') return `${col} IS NULL`;
    if (operator === 'ne') return `${col} IS NOT NULL`;
  }
  if (column.type === 'json') return undefined;
  const number = column.type === 'number';
  switch (operator) {
    case 'eq':
      return `${col} = ${param(value as string)}`;
    case 'ne':
      return number ? undefined : `${col} IS DISTINCT FROM ${param(value as string)}`;
    case 'gt':
      return `${col} ${number ? '>=' : '>'} ${param(value as string)}`;
    case 'gte':
      return `${col} >= ${param(value as string)}`;
    case 'lt':
      return `${col} ${number ? '<=' : '<'} ${param(value as string)}`;
    case 'lte':
      return `${col} <= ${param(value as string)}`;
    case 'in':
      return `${col} IN (${(value as string[]).map((item) => param(item)).join(', ')})`;
    case 'contains':
      parameters.push(value as string);
      return `contains(${col}, $${parameters.length})`;
    case 'startsWith':
      parameters.push(value as string);
      return `starts_with(${col}, $${parameters.length})`;
    default:
      return undefined;
  }
}

const timestampParts =
  /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?(?:([Zz])|([+-]\d{2})(?::?(\d{2}))?)$/;

/**
 * A timestamp the query DSL accepts (ISO 8601 with a zone, see coerce-value.ts) in the one form
 * DuckDB parses: `YYYY-MM-DD HH:MM:SS.ffffff+HH:MM`.
 */
export function canonicalTimestamp(text: string): string {
  const match = timestampParts.exec(text);
  if (!match) throw new TypeError(`not a query timestamp: ${text}`);
  const [, date, hours, minutes, seconds = '00', fraction = '', utc, offsetHours, offsetMinutes = '00'] =
    match;
  const zone = utc !== undefined ? '+00:00' : `${offsetHours}:${offsetMinutes}`;
  return `${date} ${hours}:${minutes}:${seconds}.${fraction.padEnd(6, '0')}${zone}`;
}
