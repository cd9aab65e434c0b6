import pg from 'pg';
import type { Logger } from '../logging/logger.js';

/** A node-postgres pool. */
export type Pool = pg.Pool;
/** A checked-out connection, used for transactions. */
export type PoolClient = pg.PoolClient;

/** Options of createPool. */
export interface PoolOptions {
  max: number;
  applicationName: string;
  logger?: Logger;
}

/**
 * Creates a pool whose connection errors are logged rather than crashing the process, so a
 * database restart or a terminated backend costs failed requests (503), not the service.
 */
export function createPool(connectionString: string, options: PoolOptions): Pool {
  const pool = new pg.Pool({
    connectionString,
    max: options.max,
    application_name: options.applicationName,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
  });
  // The pool listens for errors of idle connections only: a checked-out one (a transaction, an
  // advisory-lock session) whose backend dies emits 'error' with no listener, which would end the
  // process. Each connection gets its own listener; the work using it sees the failure on its next
  // query, and the pool discards it on release.
  pool.on('connect', (client) => handleConnectionErrors(client, options.logger, options.applicationName));
  // Already logged by the connection's own listener; the pool's must exist all the same.
  pool.on('error', () => undefined);
  return pool;
}

/**
 * Gives a connection an 'error' listener that logs the first failure (message and SQLSTATE only:
 * the error object carries the whole client, connection parameters included) and nothing after,
 * so a lost connection never becomes an unhandled 'error' event.
 */
export function handleConnectionErrors(
  client: pg.ClientBase,
  logger: Logger | undefined,
  name: string,
): void {
  let reported = false;
  client.on('error', (error: Error) => {
    if (reported) return;
    reported = true;
    logger?.warn({ err: describeDatabaseError(error), connection: name }, 'database connection failed');
  });
}

/** What may be logged of a database error: its message and code, never the client it carries. */
export function describeDatabaseError(error: unknown): { message: string; code?: string } {
  const message = error instanceof Error ? error.message : String(error);
  const code = pgErrorCode(error);
  return code === undefined ? { message } : { message, code };
}

/**
 * Runs `work` inside one transaction on one connection; rolls back if it throws. `begin` is the SQL
 * that opens it (`BEGIN` with transaction-local settings in the same message, for one round trip).
 */
export async function withTransaction<T>(
  pool: Pool,
  work: (client: PoolClient) => Promise<T>,
  options: { begin?: string } = {},
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query(options.begin ?? 'BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/** PostgreSQL SQLSTATE codes weft reacts to. */
export const PgErrorCode = {
  uniqueViolation: '23505',
  foreignKeyViolation: '23503',
  duplicateDatabase: '42P04',
  duplicateObject: '42710',
  invalidTextRepresentation: '22P02',
} as const;

/** The SQLSTATE of a database error, if it is one. */
export function pgErrorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

// Node's socket errors (the server is down, restarting or unreachable).
const socketErrorCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** True for errors that mean the database cannot be reached (refused, reset, timed out, shutting down). */
export function isDatabaseUnavailable(error: unknown): boolean {
  // Connecting to "localhost" tries every address and fails with an AggregateError of them all.
  if (error instanceof AggregateError) return error.errors.some(isDatabaseUnavailable);
  const code = pgErrorCode(error);
  if (code !== undefined && socketErrorCodes.has(code)) return true;
  if (code === undefined || !/^[0-9A-Z]{5}$/.test(code)) {
    const message = error instanceof Error ? error.message : '';
    return /timeout exceeded when trying to connect|Connection terminated|connection timeout/i.test(message);
  }
  // SQLSTATE class 08 (connection exception), 57P0x (shutdown, cannot connect now), 53300 (too many
  // connections) and 3D000 (the database is gone).
  return code.startsWith('08') || code.startsWith('57P0') || code === '53300' || code === '3D000';
}
