import { createHash } from 'node:crypto';
import type pg from 'pg';

const maxNamedStatements = 2_000;
// Statement text → name, so a text seen before costs a map lookup rather than a hash.
const names = new Map<string, string>();

/**
 * A query config that is a named prepared statement (planned once per connection) while the
 * number of distinct texts stays bounded; past that, texts run unnamed rather than growing every
 * connection's statement cache without limit.
 */
export function statement(text: string, values: unknown[]): pg.QueryConfig {
  let name = names.get(text);
  if (name === undefined) {
    if (names.size >= maxNamedStatements) return { text, values };
    name = `rec_${createHash('sha1').update(text).digest('base64url')}`;
    names.set(text, name);
  }
  return { name, text, values };
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
