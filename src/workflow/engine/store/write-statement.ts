import { prepareValue } from 'pg/lib/utils.js';
import { namedStatement } from '../../../platform/database/named-statement.js';
import type { Queryable } from '../../../platform/database/queryable.js';
import { yieldToEventLoop } from '../../../platform/yield-to-event-loop.js';

/** Elements of an array parameter turned into text between two pauses of the event loop. */
const ELEMENTS_PER_SLICE = 1000;

/** What a writer adds to a statement: parameters and named CTEs. */
export interface StatementBuilder {
  /** Adds a parameter and returns its placeholder. */
  param(value: unknown): string;
  /** Adds a named CTE (`name AS (sql)`). */
  with(name: string, sql: string): void;
}

/**
 * One SQL statement assembled from data-modifying CTEs, so an engine call's writes (its effects
 * and the instance row, or those of a batch of calls) cost one round trip. Statements of the same
 * text share a name, so each connection prepares each shape once.
 */
export class WriteStatement implements StatementBuilder {
  private readonly values: unknown[] = [];
  private readonly ctes: string[] = [];

  /** Adds a parameter and returns its placeholder. */
  param(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }

  /** Adds a named CTE (`name AS (sql)`). */
  with(name: string, sql: string): void {
    this.ctes.push(`${name} AS (${sql})`);
  }

  /** Runs the statement with `final` as its main query and returns its rows. */
  async run<T extends object>(client: Queryable, finalName: string, final: string): Promise<T[]> {
    const text = this.ctes.length > 0 ? `WITH ${this.ctes.join(',\n')}\n${final}` : final;
    const { rows } = await client.query<T>(
      namedStatement(text, await preparedValues(this.values), `wf_${finalName}`),
    );
    return rows;
  }
}

/**
 * The parameters as node-postgres would send them, with long arrays turned into array literals a
 * slice at a time: converting the columns of thousands of rows (a large multi-instance body) in one
 * go would block the event loop for as long. Short arrays and other values go as they are.
 */
async function preparedValues(values: readonly unknown[]): Promise<unknown[]> {
  const prepared: unknown[] = [];
  for (const value of values) {
    if (!Array.isArray(value) || value.length <= ELEMENTS_PER_SLICE) {
      prepared.push(value);
      continue;
    }
    const parts: string[] = [];
    for (let start = 0; start < value.length; start += ELEMENTS_PER_SLICE) {
      await yieldToEventLoop();
      const literal = prepareValue(value.slice(start, start + ELEMENTS_PER_SLICE)) as string;
      parts.push(literal.slice(1, -1));
    }
    prepared.push(`{${parts.join(',')}}`);
  }
  return prepared;
}

/**
 * `unnest($a::type[], $b::type[], …)`: a row per index of the columns, each column an array
 * parameter of `statement` with its element type.
 */
export function unnestParams(
  statement: StatementBuilder,
  columns: readonly (readonly [values: readonly unknown[], type: string])[],
): string {
  return `unnest(${columns.map(([values, type]) => `${statement.param(values)}::${type}[]`).join(', ')})`;
}
