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
 * Creates a pool whose idle-connection errors are logged rather than crashing the process, so a
 * database restart costs failed requests (503), not the service.
 */
export function createPool(connectionString: string, options: PoolOptions): Pool {
  const pool = new pg.Pool({
    connectionString,
    max: options.max,
    application_name: options.applicationName,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
  });
  // The error carries its whole client (connection parameters, statement cache): log what happened only.
  pool.on('error', (error) =>
    options.logger?.warn(
      { err: { message: error.message, code: (error as { code?: unknown }).code } },
      'idle database connection failed',
    ),
  );
  return pool;
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
