import { createHash } from 'node:crypto';
import type pg from 'pg';

const maxNamedStatements = 2_000;
// Statement text → name, so a text seen before costs a map lookup rather than a hash.
const names = new Map<string, string>();

/**
 * A query config that is a named prepared statement (planned once per connection) while the
 * number of distinct texts stays bounded; past that, texts run unnamed rather than growing every
 * connection's statement cache without limit. The name is a digest of the text under `prefix`:
 * PostgreSQL cuts names at 63 bytes, and two different texts must never share a name on one
 * connection.
 */
export function namedStatement(text: string, values: unknown[], prefix = 'weft'): pg.QueryConfig {
  let name = names.get(text);
  if (name === undefined) {
    if (names.size >= maxNamedStatements) return { text, values };
    name = `${prefix}_${createHash('sha1').update(text).digest('base64url')}`;
    names.set(text, name);
  }
  return { name, text, values };
}
