import type { HttpServer } from '../../platform/http/http-server.js';
import { RecordsErrors } from '../errors.js';

const socketErrorCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
]);

/**
 * Node's socket errors carry codes like `ECONNREFUSED`, which the platform's SQLSTATE-based check
 * does not recognise as "database unavailable"; this scope-level handler turns them into 503
 * POSTGRES_UNAVAILABLE and passes everything else on to the service's error handler.
 */
export function mapConnectionErrors(scope: HttpServer): void {
  scope.setErrorHandler((error) => {
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code === 'string' && socketErrorCodes.has(code)) throw RecordsErrors.databaseUnavailable();
    throw error;
  });
}
