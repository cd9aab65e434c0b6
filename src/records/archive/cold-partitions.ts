import { withTransaction, type Pool } from '../../platform/database/pool.js';
import { quoteIdent, quoteLiteral } from '../schemas/identifiers.js';

/**
 * Monthly partitions of cold storage (`records_archive.records` and `.history`, partitioned by
 * `archived_at`). Created on demand before a month's first archival, in their own short
 * transaction: creating a partition locks the parent table, which a batch should never hold.
 */
export class ColdPartitions {
  private readonly known = new Set<string>();

  constructor(private readonly pool: Pool) {}

  /** Makes sure both cold tables have a partition for the UTC month of `instant`. */
  async ensure(instant: Date): Promise<void> {
    const year = instant.getUTCFullYear();
    const month = instant.getUTCMonth();
    const key = `${year}_${String(month + 1).padStart(2, '0')}`;
    if (this.known.has(key)) return;
    const from = new Date(Date.UTC(year, month, 1)).toISOString();
    const to = new Date(Date.UTC(year, month + 1, 1)).toISOString();
    await withTransaction(this.pool, async (client) => {
      // Two instances creating the same partition at once would collide; one waits for the other.
      await client.query(`SELECT pg_advisory_xact_lock(hashtext('weft_records_archive_partitions'))`);
      for (const table of ['records', 'history']) {
        const partition = `records_archive.${quoteIdent(`${table}_${key}`)}`;
        const { rows } = await client.query(`SELECT to_regclass($1) IS NOT NULL AS present`, [partition]);
        if ((rows[0] as { present: boolean } | undefined)?.present) continue;
        await client.query(
          `CREATE TABLE ${partition} PARTITION OF records_archive.${table} FOR VALUES FROM (${quoteLiteral(from)}) TO (${quoteLiteral(to)})`,
        );
      }
    });
    this.known.add(key);
  }
}
