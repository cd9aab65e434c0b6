import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';

/** A value bound to a DuckDB statement parameter: text the SQL casts, or null. */
export type DuckParameter = string | null;

/**
 * The analytical engine of the archive: an in-memory DuckDB that writes and reads the archive's
 * Parquet files. It never loads or installs an extension (Parquet and JSON are built into the
 * npm package's library), reads only the local files the archive hands it, and is opened on first
 * use, so a service that archives nothing never starts it.
 */
export class DuckEngine {
  private instance: Promise<DuckDBInstance> | undefined;

  constructor(private readonly settings: { threads?: number; memoryLimit?: string } = {}) {}

  /** Runs `work` on a connection of its own (closed afterwards). */
  async withConnection<T>(work: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
    const connection = await (await this.open()).connect();
    try {
      // Timestamps print and parse in UTC, as records show them.
      await connection.run(`SET TimeZone = 'UTC'`);
      return await work(connection);
    } finally {
      connection.closeSync();
    }
  }

  /** The rows of a query as plain objects (BigInt for BIGINT, strings for VARCHAR). */
  async rows<T>(sql: string, parameters: DuckParameter[] = []): Promise<T[]> {
    return this.withConnection(async (connection) => {
      const reader = await connection.runAndReadAll(sql, parameters);
      return reader.getRowObjectsJS() as T[];
    });
  }

  /** Closes the database (queries in flight fail). */
  close(): void {
    const opened = this.instance;
    this.instance = undefined;
    void opened?.then((instance) => instance.closeSync()).catch(() => undefined);
  }

  private open(): Promise<DuckDBInstance> {
    this.instance ??= DuckDBInstance.create(':memory:', {
      autoinstall_known_extensions: 'false',
      autoload_known_extensions: 'false',
      threads: String(this.settings.threads ?? 2),
      memory_limit: this.settings.memoryLimit ?? '512MB',
      // Large sorts spill here, never into the working directory (which may not be writable).
      temp_directory: path.join(tmpdir(), `weft-duckdb-${process.pid}`),
    });
    return this.instance;
  }
}

/** A SQL string literal for DuckDB (file paths: they cannot be bound as parameters). */
export function duckLiteral(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/** A quoted DuckDB identifier. */
export function duckIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
