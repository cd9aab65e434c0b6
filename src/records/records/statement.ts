import type pg from 'pg';
import { namedStatement } from '../../platform/database/named-statement.js';

/** A records statement, named and prepared once per connection (see `namedStatement`). */
export function statement(text: string, values: unknown[]): pg.QueryConfig {
  return namedStatement(text, values, 'rec');
}

/** Collects positional parameters, each cast to the column's type. */
export class SqlParams {
  readonly values: unknown[] = [];

  /** Adds a value and returns its placeholder, e.g. `$3::bigint`. */
  add(value: unknown, pgType?: string): string {
    this.values.push(value);
    return pgType ? `$${this.values.length}::${pgType}` : `$${this.values.length}`;
  }
}
