import type { Clock } from '../../../platform/clock.js';
import type { Pool } from '../../../platform/database/pool.js';

/** A `lookup` transform's table and columns (validated identifiers, see claim-mapping-schema). */
export interface LookupTable {
  table: string;
  keyColumn: string;
  valueColumn: string;
}

const cacheMilliseconds = 30_000;
const maxEntries = 10_000;

function quoted(identifier: string): string {
  return identifier
    .split('.')
    .map((part) => `"${part.replaceAll('"', '""')}"`)
    .join('.');
}

/**
 * The `lookup` claim transform: maps each claim value through a database table
 * (`SELECT valueColumn FROM table WHERE keyColumn = ANY($1)`, values as parameters, identifiers
 * validated and quoted). Results are cached per table and key for 30 seconds, so a changed row
 * shows within that time and a login burst costs one query per key.
 */
export class LookupTables {
  private readonly cache = new Map<string, { values: string[]; until: number }>();

  constructor(
    private readonly pool: Pool,
    private readonly clock: Clock,
  ) {}

  /** The looked-up values of `keys` (in key order; keys with no row give nothing). */
  async lookup(table: LookupTable, keys: string[]): Promise<string[]> {
    const now = this.clock.now().getTime();
    const prefix = `${table.table}|${table.keyColumn}|${table.valueColumn}|`;
    const missing = keys.filter((key) => {
      const cached = this.cache.get(prefix + key);
      return cached === undefined || cached.until <= now;
    });
    if (missing.length > 0) {
      const { rows } = await this.pool.query<{ key: string; value: unknown }>(
        `SELECT ${quoted(table.keyColumn)}::text AS key, ${quoted(table.valueColumn)} AS value
         FROM ${quoted(table.table)} WHERE ${quoted(table.keyColumn)}::text = ANY($1::text[])`,
        [missing],
      );
      if (this.cache.size + missing.length > maxEntries) this.cache.clear();
      for (const key of missing) {
        const values = rows
          .filter((row) => row.key === key && row.value !== null)
          .flatMap((row) => (Array.isArray(row.value) ? row.value.map(String) : [String(row.value)]));
        this.cache.set(prefix + key, { values, until: now + cacheMilliseconds });
      }
    }
    return keys.flatMap((key) => this.cache.get(prefix + key)?.values ?? []);
  }
}
