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
  private timeoutMs = 0;
  private shared: DuckEngine = this;

  constructor(private readonly settings: { threads?: number; memoryLimit?: string } = {}) {}

  /**
   * The same database with every piece of work (each `withConnection`, so each `rows` query)
   * limited to `timeoutMs` (0: none), as a statement of request work is in PostgreSQL: past it
   * the connection is interrupted and the work fails with DuckTimeoutError.
   */
  withTimeout(timeoutMs: number): DuckEngine {
    const bounded = new DuckEngine(this.settings);
    bounded.shared = this.shared;
    bounded.timeoutMs = timeoutMs;
    return bounded;
  }

  /** Runs `work` on a connection of its own (closed afterwards). */
  async withConnection<T>(work: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
    const connection = await (await this.shared.open()).connect();
    let interrupted = false;
    const timer =
      this.timeoutMs > 0
        ? setTimeout(() => {
            interrupted = true;
            connection.interrupt();
          }, this.timeoutMs)
        : undefined;
    try {
      // Timestamps print and parse in UTC, as records show them.
      await connection.run(`SET TimeZone = 'UTC'`);
      return await work(connection);
    } catch (error) {
      if (interrupted) throw new DuckTimeoutError(this.timeoutMs);
      throw error;
    } finally {
      clearTimeout(timer);
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

  /** Closes the database (queries in flight fail), also for the engines `withTimeout` made of it. */
  close(): void {
    const opened = this.shared.instance;
    this.shared.instance = undefined;
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

/**
 * Thrown when DuckDB work for a request ran past its limit (`withTimeout`) and was interrupted;
 * the records service answers it as PostgreSQL's statement timeout: 503 POSTGRES_UNAVAILABLE.
 */
export class DuckTimeoutError extends Error {
  override readonly name = 'DuckTimeoutError';
  constructor(readonly timeoutMs: number) {
    super(`archive file query interrupted after ${timeoutMs} ms`);
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
