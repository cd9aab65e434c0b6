import { withTransaction, type Pool } from '../../platform/database/pool.js';
import type { Logger } from '../../platform/logging/logger.js';
import type { Queryable } from '../../platform/database/queryable.js';
import { snapshotRowStatements } from '../access/derived-rows-rls.js';
import { accessRuleSql } from '../access/rls-ddl.js';
import { fillSnapshotFromRows, fillSnapshotTable } from '../archive/archive-repository.js';
import type { ArchiveFiles } from '../archive/files/archive-files.js';
import type { CompiledSchema } from '../schemas/compiled-schema.js';
import { quoteIdent } from '../schemas/identifiers.js';
import type { SchemaRegistry } from '../schemas/schema-registry.js';

/** A snapshot as stored. */
export interface SnapshotRow {
  snapshot_id: string;
  schema_path: string;
  at: string;
  status: 'in_progress' | 'completed' | 'failed';
  row_count: string | null;
  error: string | null;
}

const snapshotColumns = `snapshot_id::text, schema_path, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at, status, row_count::text, error`;

/** The quoted table holding a snapshot's rows. */
export function snapshotTable(snapshotId: string): string {
  return `records_snapshots.${quoteIdent(`s_${snapshotId.replace(/-/g, '')}`)}`;
}

/**
 * A snapshot as the API shows it. `count: false` leaves out `row_count`, which counts every record
 * of the schema (for a caller whose row filter hides some of them).
 */
export function presentSnapshot(
  row: SnapshotRow,
  options: { count?: boolean } = {},
): Record<string, unknown> {
  const snapshot: Record<string, unknown> = {
    snapshot_id: row.snapshot_id,
    schema: row.schema_path,
    timestamp: row.at,
    status: row.status,
  };
  if (row.row_count !== null && (options.count ?? true)) snapshot.row_count = Number(row.row_count);
  if (row.error !== null) snapshot.error = row.error;
  return snapshot;
}

/**
 * Materialises snapshots: each requested snapshot becomes a table `records_snapshots.s_<id>` shaped
 * like the schema's table, holding every record's state at the instant (from hot and archived
 * history). Requests are rows of `records.snapshots`; any instance claims one with
 * `FOR UPDATE SKIP LOCKED`. `runPending()` drives it step by step in tests; `start()` polls.
 * It runs as the owner (it creates tables); each snapshot table gets the schema's read rule as
 * its row-level security, so the request roles read it as they read the schema's table.
 */
export class SnapshotJob {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();

  constructor(
    private readonly pool: Pool,
    private readonly registry: SchemaRegistry,
    private readonly logger: Logger,
    private readonly files?: ArchiveFiles,
  ) {}

  /** Stores a request (status in_progress) and starts the job on it soon. */
  async request(schema: CompiledSchema, at: string, reason: string, actor: string): Promise<SnapshotRow> {
    const { rows } = await this.pool.query<SnapshotRow>(
      `INSERT INTO records.snapshots (schema_path, at, reason, requested_by) VALUES ($1, $2, $3, $4) RETURNING ${snapshotColumns}`,
      [schema.path, at, reason, actor],
    );
    setImmediate(() => void this.runPending());
    return rows[0]!;
  }

  /** A snapshot of `schemaPath`, or undefined. */
  async find(schemaPath: string, snapshotId: string): Promise<SnapshotRow | undefined> {
    const { rows } = await this.pool.query<SnapshotRow>(
      `SELECT ${snapshotColumns} FROM records.snapshots WHERE snapshot_id = $1 AND schema_path = $2`,
      [snapshotId, schemaPath],
    );
    return rows[0];
  }

  /** Materialises every pending snapshot, one after another; resolves when none is left. */
  runPending(): Promise<void> {
    this.running = this.running.then(async () => {
      while (await this.runOne());
    });
    return this.running.catch((error: unknown) => this.logger.warn({ err: error }, 'snapshot job failed'));
  }

  /**
   * Gives snapshot tables made before snapshots carried row-level security (migration 0012) their
   * schema's read rule, as new ones get when materialised. Returns how many it secured.
   */
  async secureEarlierSnapshots(): Promise<number> {
    const { rows } = await this.pool.query<{ snapshot_id: string; schema_path: string }>(
      `SELECT s.snapshot_id::text, s.schema_path FROM records.snapshots s
       JOIN pg_class c ON c.oid = to_regclass('records_snapshots.' || quote_ident('s_' || replace(s.snapshot_id::text, '-', '')))
       WHERE s.status = 'completed' AND NOT c.relrowsecurity`,
    );
    let secured = 0;
    for (const row of rows) {
      const schema = this.registry.all().find((candidate) => candidate.path === row.schema_path);
      if (!schema) continue;
      await withTransaction(this.pool, async (client) => {
        const rule = accessRuleSql(schema.definition, ['read']);
        for (const sql of snapshotRowStatements(snapshotTable(row.snapshot_id), rule))
          await client.query(sql);
      });
      secured += 1;
    }
    if (secured > 0)
      this.logger.info({ snapshots: secured }, 'row-level security added to earlier snapshots');
    return secured;
  }

  /** Polls for requests left by a stopped instance. */
  start(intervalMilliseconds = 5000): void {
    this.timer = setInterval(() => void this.runPending(), intervalMilliseconds);
    this.timer.unref();
  }

  /** Stops polling and waits for the current snapshot. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.running.catch(() => undefined);
  }

  private async runOne(): Promise<boolean> {
    const client = await this.pool.connect();
    let claimed: { snapshot_id: string; schema_path: string } | undefined;
    try {
      await client.query('BEGIN');
      // `at` as text: a JavaScript Date would drop its microseconds.
      const { rows } = await client.query<{ snapshot_id: string; schema_path: string; at: string }>(
        `SELECT snapshot_id::text, schema_path, at::text AS at FROM records.snapshots WHERE status = 'in_progress'
         ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED`,
      );
      const request = rows[0];
      if (!request) {
        await client.query('COMMIT');
        return false;
      }
      claimed = request;
      const schema = this.registry.all().find((candidate) => candidate.path === request.schema_path);
      if (!schema?.definition.timeMachine) throw new Error(`${request.schema_path} has no time machine`);
      const table = snapshotTable(request.snapshot_id);
      await client.query(`DROP TABLE IF EXISTS ${table}`);
      await client.query(`CREATE TABLE ${table} (LIKE ${schema.table}, PRIMARY KEY (id))`);
      let inserted = await fillSnapshotTable(client, table, schema, request.at);
      // Records archived to files have their history there (none of it is in PostgreSQL).
      if (this.files)
        inserted += await fillSnapshotFromRows(
          client,
          table,
          schema,
          this.files.historyAsOf(this.pool, schema.path, request.at),
        );
      await client.query(`CREATE INDEX ON ${table} (created_at, id)`);
      for (const sql of snapshotRowStatements(table, accessRuleSql(schema.definition, ['read'])))
        await client.query(sql);
      await client.query(
        `UPDATE records.snapshots SET status = 'completed', row_count = $2, started_at = coalesce(started_at, now()), completed_at = now() WHERE snapshot_id = $1`,
        [request.snapshot_id, inserted],
      );
      await client.query('COMMIT');
      return true;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      if (!claimed) throw error;
      this.logger.warn({ err: error, snapshot: claimed.snapshot_id }, 'snapshot failed');
      await this.pool.query(
        `UPDATE records.snapshots SET status = 'failed', error = $2, completed_at = now() WHERE snapshot_id = $1`,
        [claimed.snapshot_id, 'the snapshot could not be materialised'],
      );
      return true;
    } finally {
      client.release();
    }
  }
}

/** Deletes a record's rows from every snapshot table of its schema (erasure); returns the rows deleted. */
export async function deleteFromSnapshots(db: Queryable, schemaPath: string, id: string): Promise<number> {
  const { rows } = await db.query<{ snapshot_id: string }>(
    `SELECT snapshot_id::text FROM records.snapshots WHERE schema_path = $1 AND status = 'completed'`,
    [schemaPath],
  );
  let deleted = 0;
  for (const row of rows) {
    const result = await db.query(`DELETE FROM ${snapshotTable(row.snapshot_id)} WHERE id = $1`, [id]);
    deleted += result.rowCount ?? 0;
  }
  return deleted;
}
