import type { Tagged } from './tagged-rows.js';
import { unnestParams, type StatementBuilder } from './write-statement.js';

/*
 * The two shapes of an engine effect's write, written once for every table: rows inserted from the
 * columns of an `unnest(...)`, and rows of closed waits deleted by their id. Each table's store file
 * declares its part (table, columns and their types); the effects writer hands it the rows.
 */

/**
 * Keeps a CTE's rows to the instances whose own write succeeded, given the SQL of a row's instance
 * id: data-modifying CTEs always run, so each checks the guard itself. Empty strings without a
 * guard (a start, where nothing can conflict).
 */
export interface RowGuard {
  /** ` AND <guard>`, to extend a WHERE clause. */
  and(instanceIdSql: string): string;
  /** ` WHERE <guard>`, as the only condition. */
  where(instanceIdSql: string): string;
}

/** The {@link RowGuard} of `guard` (null: every row is written). */
export function rowGuard(guard: ((instanceIdSql: string) => string) | null): RowGuard {
  return {
    and: (column) => (guard ? ` AND ${guard(column)}` : ''),
    where: (column) => (guard ? ` WHERE ${guard(column)}` : ''),
  };
}

/** A column of the rows an {@link InsertRows} writes: its name in the unnest, its type, its values. */
export interface RowColumn<T> {
  /** The column's name among the rows (`r.<name>`), and the table column it fills unless `stored` is false. */
  name: string;
  /** The PostgreSQL element type of its array parameter. */
  type: string;
  value: (row: Tagged<T>) => unknown;
  /** False for a column the table does not have, read by `computed` (such as the call's time). */
  stored?: false;
}

/** A set-wise insert of one table: one CTE whatever the number of rows and instances. */
export interface InsertRows<T> {
  /** The CTE's name. */
  cte: string;
  table: string;
  /** The rows' columns; the column of the instance id must be `process_instance_id`. */
  columns: readonly RowColumn<T>[];
  /** Table columns filled by SQL over the rows' columns (alias `r`), after the stored ones. */
  computed?: Readonly<Record<string, string>>;
  /** Inserts the rows in their order (history rows, whose ids are their order). */
  ordered?: boolean;
}

/** The columns every engine effect row carries: its org, its instance and the engine call's time. */
export const effectColumns = {
  orgId: { name: 'org_id', type: 'uuid', value: (row: Tagged<unknown>) => row.orgId },
  instanceId: {
    name: 'process_instance_id',
    type: 'uuid',
    value: (row: Tagged<unknown>) => row.instanceId,
  },
  now: { name: 'now', type: 'timestamptz', value: (row: Tagged<unknown>) => row.now, stored: false },
} as const satisfies Record<string, RowColumn<unknown>>;

/** Adds the insert of `rows` into the table of `insert` to `statement` (nothing when there are none). */
export function insertRows<T>(
  statement: StatementBuilder,
  guard: RowGuard,
  insert: InsertRows<T>,
  rows: readonly Tagged<T>[],
): void {
  if (rows.length === 0) return;
  const stored = insert.columns.filter((column) => column.stored !== false).map((column) => column.name);
  const computed = Object.entries(insert.computed ?? {});
  const values = unnestParams(
    statement,
    insert.columns.map((column) => [rows.map((row) => column.value(row)), column.type] as const),
  );
  const names = insert.columns.map((column) => column.name);
  statement.with(
    insert.cte,
    `INSERT INTO ${insert.table} (${[...stored, ...computed.map(([column]) => column)].join(', ')})
     SELECT ${[...stored.map((name) => `r.${name}`), ...computed.map(([, sql]) => sql)].join(', ')}
     FROM ${values}${insert.ordered ? ' WITH ORDINALITY' : ''} AS r(${[...names, ...(insert.ordered ? ['n'] : [])].join(', ')})${guard.where('r.process_instance_id')}${insert.ordered ? '\n     ORDER BY r.n' : ''}`,
  );
}

/** The rows of a table that hold an open wait, by the column of its wait id. */
export interface WaitRows {
  /** The CTE's name. */
  cte: string;
  table: string;
  /** The column that holds the wait's id. */
  waitColumn: string;
}

/** Adds the delete of the rows of closed waits (`waitIds`, tagged by instance) to `statement`. */
export function deleteWaitRows(
  statement: StatementBuilder,
  guard: RowGuard,
  rows: WaitRows,
  waitIds: readonly Tagged<string>[],
): void {
  if (waitIds.length === 0) return;
  const closed = unnestParams(statement, [
    [waitIds.map((row) => row.instanceId), 'uuid'],
    [waitIds.map((row) => row.item), 'uuid'],
  ]);
  statement.with(
    rows.cte,
    `DELETE FROM ${rows.table} t
     USING ${closed} AS c(instance_id, wait_id)
     WHERE t.${rows.waitColumn} = c.wait_id AND t.process_instance_id = c.instance_id${guard.and('c.instance_id')}`,
  );
}

/** A column of the rows' own values (`pick` of each item). */
export function itemColumn<T>(name: string, type: string, pick: (item: T) => unknown): RowColumn<T> {
  return { name, type, value: (row) => pick(row.item) };
}

/** The rows of a table that hold a wait (or an incident) and the column naming its element. */
export interface MovedRows {
  /** The CTE's name. */
  cte: string;
  table: string;
  /** The column that holds the wait's (or incident's) id. */
  idColumn: string;
  /** The column that holds the element id. */
  elementColumn: string;
}

/**
 * Adds the update pointing the rows of kept waits (or incidents) at their new element (a migrated
 * instance: the rows, and the ids a worker holds, stay), each tagged by instance, to `statement`.
 */
export function moveRows(
  statement: StatementBuilder,
  guard: RowGuard,
  rows: MovedRows,
  moved: readonly Tagged<{ id: string; elementId: string }>[],
): void {
  if (moved.length === 0) return;
  const values = unnestParams(statement, [
    [moved.map((row) => row.instanceId), 'uuid'],
    [moved.map((row) => row.item.id), 'uuid'],
    [moved.map((row) => row.item.elementId), 'text'],
  ]);
  statement.with(
    rows.cte,
    `UPDATE ${rows.table} t SET ${rows.elementColumn} = m.element_id
     FROM ${values} AS m(instance_id, id, element_id)
     WHERE t.${rows.idColumn} = m.id AND t.process_instance_id = m.instance_id${guard.and('m.instance_id')}`,
  );
}
