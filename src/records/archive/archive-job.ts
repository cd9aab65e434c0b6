import type { Clock } from '../../platform/clock.js';
import { withTransaction, type Pool } from '../../platform/database/pool.js';
import type { Logger } from '../../platform/logging/logger.js';
import { historyTable } from '../ddl/change-triggers.js';
import { renderCondition } from '../records/select-records.js';
import { SqlParams } from '../records/statement.js';
import type { CompiledSchema } from '../schemas/compiled-schema.js';
import type { SchemaRegistry } from '../schemas/schema-registry.js';
import { parseArchiveWhere } from './archive-spec.js';
import { insertArchivedCopies, insertArchivedHistory } from './archive-repository.js';
import { ColdPartitions } from './cold-partitions.js';
import type { ArchiveFiles } from './files/archive-files.js';
import { applyRetention } from './files/apply-retention.js';
import { exportStaged, sweepUnlisted } from './files/export-staged.js';

/** Options of the archive job. */
export interface ArchiveJobOptions {
  pool: Pool;
  registry: SchemaRegistry;
  clock: Clock;
  logger: Logger;
  /** Records moved per transaction (default 100): small batches keep row locks short. */
  batchSize?: number;
  /** Batches per schema per run (default 1000), so one run cannot go on for ever. */
  maxBatches?: number;
  /** The archive's files: when given, archived records then move from PostgreSQL into file sets. */
  files?: ArchiveFiles;
  /** Records per file set (default 50 000). */
  fileSetSize?: number;
  /** Runs first in every run (the service finishes interrupted erasures there); resolves with a count to log. */
  beforeRun?: () => Promise<number>;
  /** Age (database clock; the files' own times for the store's temporary files) past which an unlisted upload belongs to an export that died (default 3600 s; one takes seconds). */
  staleUploadSeconds?: number;
}

const dayMilliseconds = 86_400_000;
// Batches' worth of due ids read per scan of the table (dueIds).
const candidateBatches = 100;

/**
 * Moves records due for archiving (`spec.archive`) to cold storage. Each batch is one transaction:
 * claim up to `batchSize` due rows with `FOR UPDATE SKIP LOCKED` (so several instances share the
 * work and never wait on each other or on a writer), copy the records and their history (plus an
 * ARCHIVE history event) into `records_archive`, then delete them from hot storage; the record
 * table's trigger writes the ARCHIVE audit event for each deleted row. `runOnce()` drives it in
 * tests; `start()` runs it on an interval.
 */
export class ArchiveJob {
  private readonly partitions: ColdPartitions;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: ArchiveJobOptions) {
    this.partitions = new ColdPartitions(options.pool);
  }

  /** Archives every due record of every schema with `spec.archive`; resolves with the count moved. */
  runOnce(): Promise<number> {
    const run = this.running.then(() => this.archiveAll());
    this.running = run.catch(() => undefined);
    return run;
  }

  /** Runs the job every `intervalMilliseconds` (failures are logged; the next run tries again). */
  start(intervalMilliseconds = 60_000): void {
    this.timer = setInterval(() => {
      this.runOnce().catch((error: unknown) =>
        this.options.logger.warn({ err: error }, 'archive job failed'),
      );
    }, intervalMilliseconds);
    this.timer.unref();
  }

  /** Stops the interval and waits for the current run. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  private async archiveAll(): Promise<number> {
    const { files, beforeRun } = this.options;
    const finished = await beforeRun?.();
    if (finished) this.options.logger.warn({ finished }, 'finished erasures a crash had interrupted');
    if (files) {
      const swept = await sweepUnlisted(this.options.pool, files, this.options.staleUploadSeconds ?? 3600);
      if (swept.sets > 0)
        this.options.logger.warn({ swept: swept.sets }, 'removed archive file sets an export left unlisted');
      if (swept.temporaryFiles > 0)
        this.options.logger.warn(
          { swept: swept.temporaryFiles },
          'removed temporary archive files of writes that died',
        );
    }
    let moved = 0;
    for (const schema of this.options.registry.all()) {
      if (!schema.definition.archive) continue;
      moved += await this.archiveSchema(schema);
    }
    return moved;
  }

  private async archiveSchema(schema: CompiledSchema): Promise<number> {
    const { batchSize = 100, maxBatches = 1000 } = this.options;
    const now = this.options.clock.now();
    await this.partitions.ensure(now);
    let moved = 0;
    const chunk = batchSize * candidateBatches;
    let candidates: string[] = [];
    // A short read held every due row: once it is worked through, the run is done.
    let more = true;
    for (let batch = 0; batch < maxBatches; batch += 1) {
      if (candidates.length === 0) {
        if (!more) break;
        candidates = await this.dueIds(schema, now, chunk);
        more = candidates.length === chunk;
        if (candidates.length === 0) break;
      }
      const claimed = candidates.splice(0, batchSize);
      moved += await this.archiveBatch(schema, now, claimed);
    }
    if (moved > 0) this.options.logger.info({ schema: schema.path, moved }, 'records archived');
    const { files, fileSetSize = 50_000 } = this.options;
    if (files) {
      const exported = await exportStaged(this.options.pool, files, schema, fileSetSize, maxBatches);
      if (exported > 0)
        this.options.logger.info({ schema: schema.path, exported }, 'archived records moved to files');
    }
    const expired = await applyRetention(this.options.pool, files, schema, now);
    if (expired > 0)
      this.options.logger.info({ schema: schema.path, expired }, 'archived records past retainDays deleted');
    return moved;
  }

  /** The due condition (`updated_at` past the cutoff, `spec.archive.condition`) and its parameters. */
  private dueCondition(schema: CompiledSchema, now: Date): { sql: string; params: SqlParams } {
    const { definition } = schema;
    const spec = definition.archive!;
    const params = new SqlParams();
    const cutoff = params.add(
      new Date(now.getTime() - spec.afterDays * dayMilliseconds).toISOString(),
      'timestamptz',
    );
    const conditions = [`updated_at <= ${cutoff}`];
    if (spec.condition !== undefined)
      conditions.push(renderCondition(parseArchiveWhere(definition, spec.condition), params));
    return { sql: conditions.join(' AND '), params };
  }

  /**
   * Up to `limit` due ids, oldest change first, read without locks: the table has no index on
   * `updated_at`, so each read scans it, once per `candidateBatches` batches rather than per batch.
   */
  private async dueIds(schema: CompiledSchema, now: Date, limit: number): Promise<string[]> {
    const { sql, params } = this.dueCondition(schema, now);
    const { rows } = await this.options.pool.query<{ id: string }>(
      `SELECT id::text FROM ${schema.table} WHERE ${sql} ORDER BY updated_at, id LIMIT ${limit}`,
      params.values,
    );
    return rows.map((row) => row.id);
  }

  /** Claims the `ids` still due (a writer's row is skipped, not waited for) and moves them. */
  private archiveBatch(schema: CompiledSchema, now: Date, ids: string[]): Promise<number> {
    const { definition } = schema;
    const { sql, params } = this.dueCondition(schema, now);
    const candidates = params.add(ids, 'uuid[]');
    const claim = `SELECT id FROM ${schema.table} WHERE id = ANY(${candidates}) AND ${sql} ORDER BY updated_at, id FOR UPDATE SKIP LOCKED`;
    const archivedAt = now.toISOString();
    return withTransaction(this.options.pool, async (client) => {
      const { rows } = await client.query<{ id: string }>(claim, params.values);
      if (rows.length === 0) return 0;
      const claimed = rows.map((row) => row.id);
      await insertArchivedCopies(client, schema, claimed, archivedAt);
      if (definition.timeMachine) {
        const history = historyTable(definition);
        await insertArchivedHistory(client, schema, claimed, archivedAt);
        await client.query(`DELETE FROM ${history} WHERE record_id = ANY($1::uuid[])`, [claimed]);
      }
      await client.query(`DELETE FROM ${schema.table} WHERE id = ANY($1::uuid[])`, [claimed]);
      return claimed.length;
    });
  }
}
