import { createHash, randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Logger } from '../../../platform/logging/logger.js';
import type { Queryable } from '../../../platform/database/queryable.js';
import { ObjectStoreUnavailableError, type ObjectStore } from '../store/object-store.js';
import { duckLiteral, type DuckEngine, type DuckParameter } from './duck-engine.js';
import { canonicalTimestamp } from './duck-condition.js';
import { fileKey, fileKinds, fileSetPrefix, parquetCopyOptions, type FileKind } from './file-layout.js';
import { currentCopies, fileSetsOf, type FileSetEntry } from './manifest-repository.js';
import { pruneFileSets } from './prune-file-sets.js';
import { describeFileSet, writeFileSet, type FileSetContent, type WrittenFileSet } from './write-file-set.js';
import type { ColumnInfo } from '../../schemas/compiled-schema.js';
import type { SchemaDefinition } from '../../types.js';

/** A copy of a record read from a file set. */
export interface FileCopy {
  entry: FileSetEntry;
  version: number;
  /** ISO 8601 UTC. */
  archived_at: string;
  /** The copy's exact JSON text. */
  record: string;
}

/** A candidate row of an archive query: the copy and where it sits in the query's order. */
export interface FileCandidate extends FileCopy {
  id: string;
}

const idColumn: ColumnInfo = {
  name: 'id',
  type: 'uuid',
  pgType: 'uuid',
  filterable: true,
  sortable: true,
  notNull: true,
};

const isoSql = (column: string) => `strftime(${column}, '%Y-%m-%dT%H:%M:%S.%fZ')`;

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * The archive's files: writes file sets to the object store and reads them with DuckDB. Every
 * file is checked against the manifest's SHA-256 the first time this process reads it, so a file
 * changed or truncated in the store is refused (503) rather than read.
 */
export class ArchiveFiles {
  private readonly verified = new Set<string>();
  /** Most candidates one DuckDB read of an archive query returns (query-archived.ts); tests lower it. */
  candidateChunk = 1024;
  /** Most records one batch of `historyAsOf` holds; tests lower it. */
  historyBatch = 5000;

  constructor(
    readonly store: ObjectStore,
    readonly engine: DuckEngine,
    private readonly logger: Logger,
  ) {}

  /**
   * Writes `content` as a new file set of `month` and uploads it (Parquet files, then the
   * manifest object), calling `announce` with its prefix before the first object goes up (the
   * caller records it as pending). Returns the manifest entry to record; nothing is listed until it is.
   */
  async upload(
    content: FileSetContent,
    month: string,
    announce: (prefix: string) => Promise<void>,
  ): Promise<FileSetEntry> {
    const directory = await mkdtemp(path.join(tmpdir(), 'weft-archive-'));
    try {
      const written = await writeFileSet(this.engine, content, directory);
      return await this.publish(content.definition.path, month, directory, written, announce);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  }

  /**
   * Writes a copy of the file set `entry` without any row of the records `drop` as a new set of
   * the same month and uploads it like `upload`; undefined (nothing written) when no record would
   * be left. DuckDB copies the rows file to file.
   */
  async rewrite(
    entry: FileSetEntry,
    definition: SchemaDefinition,
    drop: readonly string[],
    announce: (prefix: string) => Promise<void>,
  ): Promise<FileSetEntry | undefined> {
    const directory = await mkdtemp(path.join(tmpdir(), 'weft-archive-'));
    try {
      const sources = {} as Record<FileKind, string>;
      for (const kind of fileKinds) sources[kind] = await this.localFile(entry, kind);
      const written = await this.engine.withConnection(async (connection) => {
        await connection.run(`CREATE TEMP TABLE dropped (id UUID)`);
        const appender = await connection.createAppender('dropped');
        for (const id of drop) {
          appender.appendVarchar(id);
          appender.endRow();
        }
        appender.closeSync();
        for (const kind of fileKinds) {
          const key = kind === 'records' ? '"id"' : 'record_id';
          const order = kind === 'records' ? '"id", __archived_at' : 'record_id, event_id';
          await connection.run(
            `COPY (SELECT * FROM read_parquet(${duckLiteral(sources[kind])}) WHERE ${key} NOT IN (SELECT id FROM dropped) ORDER BY ${order})
             TO ${duckLiteral(path.join(directory, `${kind}.parquet`))} ${parquetCopyOptions}`,
          );
        }
        return describeFileSet(connection, directory, definition);
      });
      if (written.files.records.rows === 0) return undefined;
      return await this.publish(definition.path, entry.month, directory, written, announce);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  }

  private async publish(
    schemaPath: string,
    month: string,
    directory: string,
    written: WrittenFileSet,
    announce: (prefix: string) => Promise<void>,
  ): Promise<FileSetEntry> {
    const prefix = fileSetPrefix(schemaPath, month, randomUUID());
    await announce(prefix);
    const files = {} as FileSetEntry['files'];
    for (const kind of fileKinds) {
      const file = written.files[kind];
      await this.store.putFile(fileKey(prefix, kind), file.path);
      files[kind] = { bytes: file.bytes, sha256: file.sha256 };
    }
    const entry: FileSetEntry = {
      file_set_id: prefix.split('/').at(-2)!,
      schema_path: schemaPath,
      month,
      object_prefix: prefix,
      record_count: written.files.records.rows,
      history_count: written.files.history.rows,
      audit_count: written.files.audit.rows,
      min_archived_at: written.minArchivedAt,
      max_archived_at: written.maxArchivedAt,
      files,
      column_bounds: written.stats,
    };
    const copies = await this.engine.rows<{ id: string; version: bigint; archived_at: string }>(
      `SELECT CAST("id" AS VARCHAR) AS id, "version", ${isoSql('__archived_at')} AS archived_at
       FROM read_parquet(${duckLiteral(written.files.records.path)}) ORDER BY "id", __archived_at`,
    );
    // Gzipped: the list of ids would otherwise be a tenth of the set's bytes.
    const manifest = path.join(directory, 'manifest.json.gz');
    await writeFile(
      manifest,
      gzipSync(
        JSON.stringify({
          ...entry,
          records: copies.map((copy) => [copy.id, Number(copy.version), copy.archived_at]),
        }),
        { level: 9 },
      ),
    );
    await this.store.putFile(fileKey(prefix, 'manifest'), manifest);
    return entry;
  }

  /**
   * For each record whose history lives in the schema's file sets (its current copy there), the
   * newest history row at or before `at`: the exact JSON row (its `state` is the record then).
   * Yields them in batches of at most `historyBatch` records, by `record_id`: each batch is read
   * by DuckDB for its range of records only (the files are sorted by `record_id`), so neither
   * DuckDB nor the caller ever holds more than one batch.
   */
  async *historyAsOf(db: Queryable, schemaPath: string, at: string): AsyncGenerator<string[]> {
    const entries = await fileSetsOf(db, schemaPath);
    if (entries.length === 0) return;
    const { files, entryOf } = await this.filesOf(entries, 'history');
    const asOf = `CAST(json_extract_string("row", '$.timestamp') AS TIMESTAMPTZ) <= CAST($1 AS TIMESTAMPTZ)`;
    let last: string | undefined;
    for (;;) {
      const from = last === undefined ? '' : ` AND record_id > CAST(${duckLiteral(last)} AS UUID)`;
      const ids = await this.engine.rows<{ record_id: string }>(
        `SELECT CAST(u AS VARCHAR) AS record_id FROM (SELECT DISTINCT record_id AS u FROM read_parquet(${files})
         WHERE ${asOf}${from}) ORDER BY u LIMIT ${this.historyBatch}`,
        [at],
      );
      const upTo = ids[ids.length - 1]?.record_id;
      if (upTo === undefined) return;
      const rows = await this.engine.rows<{ record_id: string; row: string; filename: string }>(
        `SELECT CAST(record_id AS VARCHAR) AS record_id, arg_max("row", event_id) AS "row", arg_max(filename, event_id) AS filename
         FROM read_parquet(${files}, filename = true)
         WHERE ${asOf}${from} AND record_id <= CAST(${duckLiteral(upTo)} AS UUID)
         GROUP BY record_id`,
        [at],
      );
      const current = await currentCopies(
        db,
        rows.map((row) => ({ file_set_id: entryOf(row.filename).file_set_id, record_id: row.record_id })),
      );
      yield rows
        .filter((row) => current.has(`${entryOf(row.filename).file_set_id}/${row.record_id}`))
        .map((row) => row.row);
      if (ids.length < this.historyBatch) return;
      last = upTo;
    }
  }

  /** The records whose copy in the file set was archived before `cutoff` (ISO 8601). */
  async archivedBefore(entry: FileSetEntry, cutoff: string): Promise<string[]> {
    const file = await this.localFile(entry, 'records');
    const rows = await this.engine.rows<{ id: string }>(
      `SELECT DISTINCT CAST("id" AS VARCHAR) AS id FROM read_parquet(${duckLiteral(file)}) WHERE __archived_at < CAST($1 AS TIMESTAMPTZ)`,
      [canonicalTimestamp(cutoff)],
    );
    return rows.map((row) => row.id);
  }

  /** The records a file set holds a copy of. */
  async recordsIn(entry: FileSetEntry): Promise<string[]> {
    const file = await this.localFile(entry, 'records');
    const rows = await this.engine.rows<{ id: string }>(
      `SELECT DISTINCT CAST("id" AS VARCHAR) AS id FROM read_parquet(${duckLiteral(file)})`,
    );
    return rows.map((row) => row.id);
  }

  /** Removes a file set's objects (an export that did not commit, or a rewritten set). */
  async remove(prefix: string): Promise<void> {
    for (const key of await this.store.list(prefix)) await this.store.delete(key);
  }

  /** The local path of one file of a set, checked against the manifest. */
  async localFile(entry: FileSetEntry, kind: FileKind): Promise<string> {
    const key = fileKey(entry.object_prefix, kind);
    const local = await this.store.localPath(key);
    const expected = entry.files[kind].sha256;
    if (local === undefined) {
      this.logger.error({ key }, 'an archive file listed in the manifest is missing from the store');
      throw new ObjectStoreUnavailableError(`archive file ${key} is missing`);
    }
    const mark = `${local}:${expected}`;
    if (!this.verified.has(mark)) {
      if ((await sha256Of(local)) !== expected) {
        this.logger.error({ key }, 'an archive file does not match its manifest checksum');
        throw new ObjectStoreUnavailableError(`archive file ${key} does not match the manifest`);
      }
      this.verified.add(mark);
    }
    return local;
  }

  /**
   * The current copy of `id` in the schema's file sets (superseded copies left out), among `copies`
   * when the caller has already read them.
   */
  async currentCopy(
    db: Queryable,
    schemaPath: string,
    id: string,
    copies?: FileCopy[],
  ): Promise<FileCopy | undefined> {
    copies ??= await this.copiesOf(db, schemaPath, id);
    const current = await currentCopies(
      db,
      copies.map((copy) => ({ file_set_id: copy.entry.file_set_id, record_id: id })),
    );
    return copies.find((copy) => current.has(`${copy.entry.file_set_id}/${id}`));
  }

  /** The schema's file sets whose manifest `id` bounds do not rule out `id`. */
  private async setsThatMayHold(db: Queryable, schemaPath: string, id: string): Promise<FileSetEntry[]> {
    return pruneFileSets(await fileSetsOf(db, schemaPath), [
      { kind: 'compare', column: idColumn, operator: 'eq', value: id },
    ]);
  }

  /** Every copy of `id` in the schema's file sets, newest first (superseded ones included). */
  async copiesOf(db: Queryable, schemaPath: string, id: string): Promise<FileCopy[]> {
    const entries = await this.setsThatMayHold(db, schemaPath, id);
    if (entries.length === 0) return [];
    const { files, entryOf } = await this.filesOf(entries, 'records');
    const rows = await this.engine.rows<{
      version: bigint;
      archived_at: string;
      record: string;
      filename: string;
    }>(
      `SELECT "version", ${isoSql('__archived_at')} AS archived_at, __record AS record, filename
       FROM read_parquet(${files}, filename = true) WHERE "id" = CAST($1 AS UUID)
       ORDER BY __archived_at DESC, "version" DESC`,
      [id],
    );
    return rows.map((row) => ({
      entry: entryOf(row.filename),
      version: Number(row.version),
      archived_at: row.archived_at,
      record: row.record,
    }));
  }

  /**
   * Whether the schema's file sets hold any copy of `id` (superseded ones included), for checks
   * that need only existence: sets whose `id` bounds exclude it are not opened, and only the `id`
   * column is read, up to the first match.
   */
  async holds(db: Queryable, schemaPath: string, id: string): Promise<boolean> {
    const entries = await this.setsThatMayHold(db, schemaPath, id);
    if (entries.length === 0) return false;
    const { files } = await this.filesOf(entries, 'records');
    const rows = await this.engine.rows(
      `SELECT 1 FROM read_parquet(${files}) WHERE "id" = CAST($1 AS UUID) LIMIT 1`,
      [id],
    );
    return rows.length > 0;
  }

  /** The history rows or audit events of `id` in the schema's file sets: exact JSON, each event once, in order. */
  async rowsOf(db: Queryable, schemaPath: string, id: string, kind: 'history' | 'audit'): Promise<string[]> {
    // A set holds a record's events only beside a copy of it, so the copies' id bounds prune here too.
    const entries = await this.setsThatMayHold(db, schemaPath, id);
    if (entries.length === 0) return [];
    const { files } = await this.filesOf(entries, kind);
    const rows = await this.engine.rows<{ row: string }>(
      `SELECT any_value("row") AS "row" FROM read_parquet(${files}) WHERE record_id = CAST($1 AS UUID)
       GROUP BY event_id ORDER BY event_id`,
      [id],
    );
    return rows.map((row) => row.row);
  }

  /**
   * The history rows and audit events of `id` in the file sets `entries` (exact JSON, each event
   * once, in order), in one DuckDB read. A set holds a record's events only beside a copy of it,
   * so the sets holding its copies are all there is to read.
   */
  async eventsOf(
    entries: readonly FileSetEntry[],
    id: string,
  ): Promise<{ history: string[]; audit: string[] }> {
    if (entries.length === 0) return { history: [], audit: [] };
    const history = await this.filesOf([...entries], 'history');
    const audit = await this.filesOf([...entries], 'audit');
    const events = (kind: string, files: string) =>
      `SELECT '${kind}' AS kind, event_id, any_value("row") AS "row" FROM read_parquet(${files})
       WHERE record_id = CAST($1 AS UUID) GROUP BY event_id`;
    const rows = await this.engine.rows<{ kind: 'history' | 'audit'; row: string }>(
      `${events('history', history.files)} UNION ALL ${events('audit', audit.files)} ORDER BY kind, event_id`,
      [id],
    );
    return {
      history: rows.filter((row) => row.kind === 'history').map((row) => row.row),
      audit: rows.filter((row) => row.kind === 'audit').map((row) => row.row),
    };
  }

  /**
   * Candidate rows of an archive query over `entries`: copies passing `where` (DuckDB SQL over the
   * typed columns, values in `parameters`), after `after` in the order newest archival first then
   * `id`, at most `limit`. The caller decides each candidate exactly (archive-query.ts).
   */
  async candidates(
    entries: FileSetEntry[],
    where: string | undefined,
    parameters: DuckParameter[],
    after: { archived_at: string; id: string } | undefined,
    limit: number,
  ): Promise<FileCandidate[]> {
    if (entries.length === 0) return [];
    const { files, entryOf } = await this.filesOf(entries, 'records');
    const values = [...parameters];
    const conditions = where !== undefined ? [`(${where})`] : [];
    if (after) {
      values.push(after.archived_at, after.id);
      const at = `CAST($${values.length - 1} AS TIMESTAMPTZ)`;
      conditions.push(
        `(__archived_at < ${at} OR (__archived_at = ${at} AND "id" > CAST($${values.length} AS UUID)))`,
      );
    }
    const rows = await this.engine.rows<{
      id: string;
      version: bigint;
      archived_at: string;
      record: string;
      filename: string;
    }>(
      `SELECT CAST("id" AS VARCHAR) AS id, "version", ${isoSql('__archived_at')} AS archived_at, __record AS record, filename
       FROM read_parquet(${files}, filename = true)${conditions.length > 0 ? ` WHERE ${conditions.join(' AND ')}` : ''}
       ORDER BY __archived_at DESC, "id" LIMIT ${limit}`,
      values,
    );
    return rows.map((row) => ({
      id: row.id,
      entry: entryOf(row.filename),
      version: Number(row.version),
      archived_at: row.archived_at,
      record: row.record,
    }));
  }

  private async filesOf(
    entries: FileSetEntry[],
    kind: FileKind,
  ): Promise<{ files: string; entryOf: (file: string) => FileSetEntry }> {
    const byFile = new Map<string, FileSetEntry>();
    for (const entry of entries) byFile.set(await this.localFile(entry, kind), entry);
    return {
      files: `[${[...byFile.keys()].map(duckLiteral).join(', ')}]`,
      entryOf: (file) => byFile.get(file)!,
    };
  }
}
