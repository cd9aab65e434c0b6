import type { Condition } from '../../records/select-plan.js';
import type { FieldType } from '../../types.js';
import type { FileSetEntry } from './manifest-repository.js';

type Comparison = Extract<Condition, { kind: 'compare' }>;

/**
 * A number bound or query value as a double: DuckDB prints the bound of a column holding a number
 * past the double range (1e400, kept exact in the record) as `inf` or `-inf`, which `Number` does
 * not read.
 */
function doubleOf(text: string): number {
  if (text === 'inf') return Infinity;
  if (text === '-inf') return -Infinity;
  return Number(text);
}

/** Orders two values of a column type (negative, zero, positive), or undefined when it cannot tell. */
function compare(type: FieldType, left: string, right: string): number | undefined {
  switch (type) {
    case 'integer': {
      const a = BigInt(left);
      const b = BigInt(right);
      return a < b ? -1 : a > b ? 1 : 0;
    }
    case 'number': {
      const a = doubleOf(left);
      const b = doubleOf(right);
      if (Number.isNaN(a) || Number.isNaN(b)) return undefined;
      return a < b ? -1 : a > b ? 1 : 0;
    }
    case 'timestamp': {
      // Bounds print as `YYYY-MM-DD HH:MM:SS[.ffffff]+00`; milliseconds are what Date keeps.
      const a = Date.parse(left.replace(' ', 'T').replace(/([+-]\d{2})$/, '$1:00'));
      const b = Date.parse(right.replace(' ', 'T').replace(/([+-]\d{2})$/, '$1:00'));
      if (Number.isNaN(a) || Number.isNaN(b)) return undefined;
      // Equal to the millisecond may still differ in microseconds: call it a tie.
      return Math.abs(a - b) < 1 ? 0 : a - b;
    }
    case 'string':
    case 'enum':
      return Buffer.compare(Buffer.from(left), Buffer.from(right));
    case 'date':
    case 'uuid':
      return left.toLowerCase() < right.toLowerCase() ? -1 : left.toLowerCase() > right.toLowerCase() ? 1 : 0;
    default:
      return undefined;
  }
}

/** Whether a file whose column lies in `[low, high]` may hold a row passing the comparison. */
function mayMatch(leaf: Comparison, bounds: [string, string]): boolean {
  const { column, operator, value } = leaf;
  const [low, high] = bounds;
  const within = (item: string) => {
    const above = compare(column.type, item, low);
    const below = compare(column.type, item, high);
    return above === undefined || below === undefined || (above >= 0 && below <= 0);
  };
  const cmp = (a: string, b: string) => compare(column.type, a, b);
  switch (operator) {
    case 'eq':
      return typeof value !== 'string' || within(value);
    case 'in':
      return !Array.isArray(value) || value.some(within);
    case 'gt':
    case 'gte': {
      const order = typeof value === 'string' ? cmp(high, value) : undefined;
      return order === undefined || order >= 0;
    }
    case 'lt':
    case 'lte': {
      const order = typeof value === 'string' ? cmp(low, value) : undefined;
      return order === undefined || order <= 0;
    }
    default:
      return true;
  }
}

/** The comparisons every matching row must pass: the leaves of the top-level conjunction. */
function requiredLeaves(conditions: Condition[]): Comparison[] {
  return conditions.flatMap((condition) =>
    condition.kind === 'compare'
      ? [condition]
      : condition.kind === 'and'
        ? requiredLeaves(condition.items)
        : [],
  );
}

/**
 * The file sets that may hold a row matching every condition, judged by the manifest's column
 * bounds alone (no file is opened): a set whose bounds exclude a required comparison is skipped.
 */
export function pruneFileSets(entries: FileSetEntry[], conditions: Condition[]): FileSetEntry[] {
  const leaves = requiredLeaves(conditions).filter((leaf) => leaf.value !== null);
  if (leaves.length === 0) return entries;
  return entries.filter((entry) =>
    leaves.every((leaf) => {
      const bounds = entry.column_bounds[leaf.column.name];
      // No bounds kept (no value, or values too long to keep): the file cannot be judged.
      return bounds === undefined || bounds === null || mayMatch(leaf, bounds);
    }),
  );
}
