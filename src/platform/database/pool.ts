import pg from 'pg';
import type { Logger } from '../logging/logger.js';

/** A node-postgres pool. */
export type Pool = pg.Pool;
/** A checked-out connection, used for transactions. */
export type PoolClient = pg.PoolClient;

/** How long a pool's work may wait on the database; 0 means no limit. */
export interface DatabaseTimeouts {
  /**
   * Longest statement: the server's `statement_timeout`, and (one second later) the client's own
   * read timeout, which also ends a statement whose answer never arrives (a blackholed network).
   */
  statementMs: number;
  /** Longest wait for a connection: opening one, or waiting for a free one of the pool. */
  connectMs: number;
}

/** The timeouts of a pool that is given none: connecting is bounded, statements are not. */
export const adminTimeouts: DatabaseTimeouts = { statementMs: 0, connectMs: 5_000 };

/** Options of createPool. */
export interface PoolOptions {
  max: number;
  applicationName: string;
  logger?: Logger;
  /** `adminTimeouts` when omitted (migrations, CLI work, jobs of the owner login). */
  timeouts?: DatabaseTimeouts;
}

// How much later than the server's statement_timeout the client gives up on an answer: the server's
// own cancellation (a clean error on a usable connection) should win whenever the server is there.
const clientReadMarginMs = 1_000;
// First TCP keepalive probe after this much silence, so a connection whose peer vanished (a host
// that went away, a dropped NAT entry) is noticed by the kernel rather than used forever.
const keepAliveDelayMs = 10_000;

/**
 * Creates a pool whose connection errors are logged rather than crashing the process, so a
 * database restart or a terminated backend costs failed requests (503), not the service. Every
 * wait is bounded by `timeouts`: connecting and waiting for a free connection, each statement
 * (server- and client-side), and TCP keepalive finds dead peers. A connection that failed or timed
 * out is discarded when released with its error (see `rollBack`), so the pool heals by itself.
 */
export function createPool(connectionString: string, options: PoolOptions): Pool {
  const timeouts = options.timeouts ?? adminTimeouts;
  const pool = new pg.Pool({
    connectionString,
    max: options.max,
    application_name: options.applicationName,
    connectionTimeoutMillis: timeouts.connectMs,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
    keepAliveInitialDelayMillis: keepAliveDelayMs,
    ...(timeouts.statementMs > 0
      ? {
          statement_timeout: timeouts.statementMs,
          query_timeout: timeouts.statementMs + clientReadMarginMs,
        }
      : {}),
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
  let broken: Error | undefined;
  try {
    await client.query(options.begin ?? 'BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    broken = await rollBack(client, error);
    throw error;
  } finally {
    client.release(broken);
  }
}

/**
 * Rolls back the transaction `error` interrupted. Returns an error when the connection cannot be
 * trusted any more (it is lost, timed out, or the rollback failed), for `client.release(…)`, which
 * then discards it instead of handing a stuck connection to the next request.
 */
export async function rollBack(client: PoolClient, error: unknown): Promise<Error | undefined> {
  // A lost or timed-out connection would make ROLLBACK wait out the read timeout once more.
  if (isDatabaseUnavailable(error)) return error instanceof Error ? error : new Error(String(error));
  return client.query('ROLLBACK').then(
    () => undefined,
    (rollbackError: unknown) =>
      rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError)),
  );
}

/**
 * Asks the database for `SELECT 1`, giving up after `timeoutMs` (a health probe). False when it
 * does not answer in time (including the wait for a pool connection) or answers with an error.
 */
export async function databaseAnswers(pool: Pool, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  // The statement's own read timeout makes the pool discard a connection that never answers.
  const probe = pool.query({ text: 'SELECT 1', query_timeout: timeoutMs } as pg.QueryConfig).then(
    () => true,
    () => false,
  );
  try {
    return await Promise.race([probe, deadline]);
  } finally {
    clearTimeout(timer);
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
    return /timeout exceeded when trying to connect|Connection terminated|connection timeout|Query read timeout/i.test(
      message,
    );
  }
  // SQLSTATE class 08 (connection exception), 57P0x (shutdown, cannot connect now), 57014 (the
  // statement timeout cancelled it), 53300 (too many connections) and 3D000 (the database is gone).
  return (
    code.startsWith('08') ||
    code.startsWith('57P0') ||
    code === '57014' ||
    code === '53300' ||
    code === '3D000'
  );
}
